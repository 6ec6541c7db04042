"""Issue 28: QLoRA dequantizes its frozen 4-bit base before every matmul of a micro-step.

Qwen's README times LoRA and Q-LoRA of the same model on the same A100 at the same lengths
(tests/data/speed_cases.toml, source qwen1-readme-finetune-profiling): Q-LoRA costs a fixed
0.19-0.23 s more per micro-step for 7B and 0.39-0.43 s for 14B at 2048 and 4096 tokens alike, a
cost of the weights, not of the tokens; gpuwise had priced QLoRA as LoRA at a lower utilisation,
which is optimistic exactly where micro-steps are short (small batches, short sequences).
"""

from __future__ import annotations

from gpuwise.catalog import load_catalog
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.request import MemoryRequest, Mode
from gpuwise.estimate.resolve import Resolved, resolve
from gpuwise.estimate.speed import SpeedInputs
from gpuwise.estimate.speed_constants import SpeedConstants
from gpuwise.estimate.train_speed import dequant_seconds, training_speed

CAT = load_catalog()
MC = MemoryConstants.from_catalog(CAT)
SC = SpeedConstants.from_catalog(CAT)
A100 = CAT.gpu_by_id("a100-80gb")
RTX3090 = CAT.gpu_by_id("rtx-3090")


def _r(
    model: str = "qwen-7b",
    mode: Mode = "qlora",
    quant: str = "nf4",
    seq_len: int = 2048,
    checkpointing: bool = True,
) -> Resolved:
    req = MemoryRequest(
        model=CAT.model(model),
        mode=mode,
        quant=quant,
        batch=1,
        seq_len=seq_len,
        grad_checkpointing=checkpointing,
        engine="transformers",
    )
    return resolve(req, MC)


def test_a_float_base_pays_no_dequantization() -> None:
    assert dequant_seconds(_r(mode="lora", quant="bf16"), SC, SpeedInputs(gpu=A100)) == 0.0


def test_dequantization_is_a_cost_of_the_weights_not_of_the_tokens() -> None:
    inputs = SpeedInputs(gpu=A100)
    short = dequant_seconds(_r(seq_len=512), SC, inputs)
    long = dequant_seconds(_r(seq_len=8192), SC, inputs)
    assert short == long > 0
    bigger = dequant_seconds(_r(model="qwen-14b"), SC, inputs)
    assert 1.8 < bigger / short < 2.1  # 12.6B vs 6.5B linear weights


def test_recomputation_dequantizes_a_third_time() -> None:
    inputs = SpeedInputs(gpu=A100)
    with_recompute = dequant_seconds(_r(), SC, inputs)
    without = dequant_seconds(_r(checkpointing=False), SC, inputs)
    assert abs(with_recompute / without - 1.5) < 1e-9


def test_the_step_adds_the_dequantization_and_a_slower_card_pays_more() -> None:
    est = training_speed(_r(), SC, SpeedInputs(gpu=A100))
    assert est.factors["dequant_s"] == dequant_seconds(_r(), SC, SpeedInputs(gpu=A100))
    assert est.factors["dequant_s"] < (est.step_time_s or 0)
    # 936 GB/s against 2039 GB/s: the same weights take about twice as long on an RTX 3090
    ratio = dequant_seconds(_r(), SC, SpeedInputs(gpu=RTX3090)) / est.factors["dequant_s"]
    assert 2.0 < ratio < 2.3


def test_auto_gptq_dequantizes_slower_than_bitsandbytes() -> None:
    """auto-gptq's training path unpacks with elementwise PyTorch passes, bitsandbytes with one
    kernel: the fitted traffic per weight (speed.toml) keeps that order."""
    inputs = SpeedInputs(gpu=A100)
    gptq = dequant_seconds(_r(quant="int4-gptq"), SC, inputs)
    nf4 = dequant_seconds(_r(quant="nf4"), SC, inputs)
    assert gptq > 2 * nf4 > 0


def test_short_micro_steps_lose_more_throughput_than_long_ones() -> None:
    """QLoRA's tokens/s rises with the micro-step's tokens as the fixed dequantization is spread
    over more of them (LLaMA-Factory's TGS: 2,295 at 1,024 tokens, 2,926 at 4,096)."""
    inputs = SpeedInputs(gpu=A100)
    short = training_speed(_r(seq_len=1024), SC, inputs).train_tokens_per_s or 0
    long = training_speed(_r(seq_len=4096), SC, inputs).train_tokens_per_s or 0
    lora_short = training_speed(_r(mode="lora", quant="bf16", seq_len=1024), SC, inputs)
    assert long > 1.1 * short
    assert short < (lora_short.train_tokens_per_s or 0)
