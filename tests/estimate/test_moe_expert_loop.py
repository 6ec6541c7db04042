"""Issue 26 item 6: MoE fine-tuning through Hugging Face transformers loops over the experts.

ms-swift's benchmarks (tests/data/speed_cases.toml, source ms-swift-benchmarks) ran the same MoE
models 2× (ZeRO-2) to 10× (ZeRO-3) slower under transformers than under Megatron's grouped GEMMs,
while a dense model ran within 14% on both; gpuwise priced both stacks alike.
"""

from __future__ import annotations

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.request import MemoryRequest
from gpuwise.estimate.resolve import Resolved, resolve
from gpuwise.estimate.speed import SpeedInputs
from gpuwise.estimate.speed_constants import SpeedConstants
from gpuwise.estimate.train_speed import expert_loop_seconds, training_speed

CAT = load_catalog()
MC = MemoryConstants.from_catalog(CAT)
SC = SpeedConstants.from_catalog(CAT)
A100 = CAT.gpu_by_id("a100-80gb")


def _r(model: str, mode: str = "lora", engine: str = "transformers") -> Resolved:
    req = MemoryRequest(
        model=CAT.model(model), mode=mode, quant="bf16", batch=1, seq_len=2048, engine=engine
    )
    return resolve(req, MC)


def test_moe_lora_under_transformers_pays_the_per_expert_loop_regression() -> None:
    r = _r("qwen3-30b-a3b")
    looped = training_speed(r, SC, SpeedInputs(gpu=A100))
    grouped = training_speed(r, SC, SpeedInputs(gpu=A100, moe_expert_loop=False))
    loop_s = expert_loop_seconds(r, SC, SpeedInputs(gpu=A100))
    assert loop_s > 0
    assert looped.factors["expert_loop_s"] == loop_s
    assert (looped.step_time_s or 0) - (grouped.step_time_s or 0) == pytest.approx(loop_s)
    assert (looped.train_tokens_per_s or 0) < (grouped.train_tokens_per_s or 0) / 2


def test_the_loop_grows_with_the_experts_and_the_adapters() -> None:
    """128 experts (Qwen3-30B-A3B) loop longer than 64 (DeepSeek-V2-Lite); LoRA's adapter kernels
    on each expert double the launches of a full fine-tune."""
    inputs = SpeedInputs(gpu=A100)
    many = expert_loop_seconds(_r("qwen3-30b-a3b"), SC, inputs)
    fewer = expert_loop_seconds(_r("deepseek-v2-lite"), SC, inputs)
    assert many > fewer > 0
    full = expert_loop_seconds(_r("qwen3-30b-a3b", mode="full"), SC, inputs)
    assert many == 2 * full


def test_dense_models_and_grouped_gemm_engines_pay_no_loop() -> None:
    inputs = SpeedInputs(gpu=A100)
    assert expert_loop_seconds(_r("llama-3.1-8b"), SC, inputs) == 0.0
    assert expert_loop_seconds(_r("qwen3-30b-a3b", engine="unsloth"), SC, inputs) == 0.0
    grouped = SpeedInputs(gpu=A100, moe_expert_loop=False)
    assert expert_loop_seconds(_r("qwen3-30b-a3b"), SC, grouped) == 0.0


def test_every_bound_a_speed_estimate_names_is_translated_regression() -> None:
    """The estimate table prints t(f"bound.{bound}"): the expert loop, dequantization and the
    per-step overhead were shown as raw ids ("bound.expert-loop")."""
    from gpuwise.i18n import t

    looped = training_speed(_r("qwen3-30b-a3b"), SC, SpeedInputs(gpu=A100))
    assert looped.bound == "expert-loop"
    names = {"memory-bandwidth", "compute", "interconnect", "offload-link", "expert-loop"}
    names |= {"dequantization", "per-token-overhead"}
    for name in names:
        for lang in ("en", "zh"):
            assert t(f"bound.{name}", lang) != f"bound.{name}"
