"""MXFP4 (gpt-oss's shipped format): weight bytes against the published checkpoints, the model's
own format as the default, support per engine and card, and attention FLOPs over KV layers only.

Published figures (read 2026-12-03):

- gpt-oss-20b: `model.safetensors.index.json` metadata total_size 13,761,264,768 bytes
  (https://huggingface.co/openai/gpt-oss-20b/blob/main/model.safetensors.index.json; the copy in
  tests/fixtures/configs/openai__gpt-oss-20b, cited in tests/fixtures/README.md).
- gpt-oss-120b: total_size 65,248,815,744 bytes
  (https://huggingface.co/openai/gpt-oss-120b/blob/main/model.safetensors.index.json), the
  `tensor_bytes` a public provenance test asserts for that checkpoint's 15 shards.
- Both figures are also re-derived below from the checkpoints' tensor list (U8 `_blocks` of 16
  bytes per 32 values and U8 `_scales` per 32 values for the experts, BF16 for everything else),
  so the two numbers are tied to the architecture, not copied.
- Model card (https://huggingface.co/openai/gpt-oss-120b): "The models are post-trained with
  quantization of the mixture-of-experts (MoE) weights to MXFP4 format, where the weights are
  quantized to 4.25 bits per parameter ... enables the smaller model to run on systems with as
  little as 16GB memory, and the larger model to fit on a single 80GB GPU."
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.catalog.local import read_local_model
from gpuwise.catalog.ollama_tags import ollama_quant
from gpuwise.catalog.schema import LlmModel
from gpuwise.errors import UserError
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.request import MemoryRequest
from gpuwise.estimate.resolve import resolve
from gpuwise.estimate.speed import decode_terms, prompt_flops
from gpuwise.estimate.weights import expert_params, weight_bytes

CAT = load_catalog()
MC = MemoryConstants.from_catalog(CAT)
FIXTURE_20B = Path(__file__).parent.parent / "fixtures" / "configs" / "openai__gpt-oss-20b"

PUBLISHED_BYTES = {"gpt-oss-20b": 13_761_264_768, "gpt-oss-120b": 65_248_815_744}
TOLERANCE = 0.02
"""The formula (architecture parameters scaled to params_b, experts at 4.25 bits, the rest at
16) must land within 2% of the published checkpoint bytes; it is at about 0.1%."""
GIB = 2**30


def _checkpoint_bytes(m: LlmModel) -> int:
    """Bytes of the gpt-oss safetensors files from their tensor list, tensor by tensor."""
    assert m.moe is not None
    h, e, width, vocab = m.hidden_size, m.moe.experts, m.moe.expert_intermediate_size, m.vocab_size
    q, kv = m.heads * m.head_dim, m.kv_heads * m.head_dim
    blocks = e * (2 * width * h + h * width) // 32  # gate_up and down, 32 values per block
    experts_u8 = blocks * 16 + blocks  # 16 bytes of FP4 pairs + one E8M0 scale per block
    bf16 = (
        e * (2 * width + h)  # gate_up_proj_bias, down_proj_bias
        + e * h + e  # router weight and bias
        + 2 * h * q + 2 * h * kv  # q, o, k, v weights
        + q + 2 * kv + h  # q, k, v, o biases
        + m.heads  # attention sinks
        + 2 * h  # input and post-attention norms
    )  # fmt: skip
    per_layer = experts_u8 + 2 * bf16
    return m.layers * per_layer + 2 * (2 * vocab * h + h)  # embedding, head, final norm


@pytest.mark.parametrize("model_id", sorted(PUBLISHED_BYTES))
def test_published_bytes_follow_from_the_tensor_list(model_id: str) -> None:
    assert _checkpoint_bytes(CAT.model(model_id)) == PUBLISHED_BYTES[model_id]


@pytest.mark.parametrize("model_id", sorted(PUBLISHED_BYTES))
def test_mxfp4_estimate_matches_the_published_checkpoint(model_id: str) -> None:
    m = CAT.model(model_id)
    wb = weight_bytes(m, MC.weight_format("mxfp4"))
    published = PUBLISHED_BYTES[model_id]
    assert abs(wb.total - published) / published < TOLERANCE, (wb.total, published)
    assert wb.quant_constants == pytest.approx(expert_params(m) * 0.25 / 8)
    # the experts are 90+% of the parameters (model card); bf16 is 3.0x (20b) to 3.4x (120b)
    assert expert_params(m) / (m.params_b * 1e9) > 0.9
    assert weight_bytes(m, MC.weight_format("bf16")).total > 3 * wb.total


def test_llama_cpp_keeps_the_token_embeddings_on_the_cpu() -> None:
    m = CAT.model("gpt-oss-20b")
    fmt = MC.weight_format("mxfp4")
    on_gpu, on_cpu = weight_bytes(m, fmt), weight_bytes(m, fmt, embeddings_on_cpu=True)
    assert on_gpu.embedding_on_gpu and not on_cpu.embedding_on_gpu
    assert on_cpu.total < on_gpu.total


def test_llama_cpp_reads_the_gguf_whose_other_tensors_are_q8_0() -> None:
    """ggml-org's MXFP4 GGUF of gpt-oss-120b is 59.02 GiB (llama-bench, catalog source
    mem-gptoss-gguf-size): the experts in MXFP4, every other tensor in Q8_0 (8.5 bits), not
    the checkpoint's bf16 (60.7 GiB). On the GPU: the file less the token embeddings."""
    m = CAT.model("gpt-oss-120b")
    fmt = MC.weight_format("mxfp4")
    assert fmt.gguf_rest_bits == 8.5
    embeddings = m.vocab_size * m.hidden_size * 8.5 / 8
    gguf = weight_bytes(m, fmt, embeddings_on_cpu=True).total + embeddings
    assert gguf / 2**30 == pytest.approx(59.02, rel=0.01)
    assert weight_bytes(m, fmt).total / 2**30 > 60.5  # the safetensors checkpoint vLLM reads


def test_default_format_is_the_shipped_one_and_120b_fits_one_80gb_card(cli) -> None:  # type: ignore[no-untyped-def]
    res = cli("estimate", "gpt-oss-120b", "--gpu", "h100-sxm", "--json")
    assert res.code == 0, res.err
    data = res.json()
    assert data["inputs"]["quant"] == "mxfp4"
    assert data["fits"] is True
    bf16 = cli("estimate", "gpt-oss-120b", "--gpu", "h100-sxm", "--quant", "bf16", "--json").json()
    assert bf16["fits"] is False  # asked for explicitly, bf16 still does not fit (218 GiB)


def test_20b_runs_within_16_gb(cli) -> None:  # type: ignore[no-untyped-def]
    res = cli("estimate", "gpt-oss-20b", "--gpu", "rtx-4080", "--json")
    assert res.code == 0, res.err
    data = res.json()
    assert data["inputs"]["quant"] == "mxfp4" and data["fits"] is True
    assert data["memory"]["device_total_bytes"] < 16e9


def test_unsupported_combination_exits_2_naming_what_works(cli) -> None:  # type: ignore[no-untyped-def]
    res = cli("estimate", "gpt-oss-120b", "--gpu", "v100-32gb", "--engine", "vllm")
    assert res.code == 2
    msg = res.err + res.out
    assert "mxfp4" in msg and "v100-32gb" in msg and "fp16" in msg and "Traceback" not in msg


def test_mxfp4_on_a_dense_model_exits_2(cli) -> None:  # type: ignore[no-untyped-def]
    res = cli("estimate", "llama-3.1-8b", "--quant", "mxfp4")
    assert res.code == 2
    assert "llama-3.1-8b" in res.err + res.out and "Traceback" not in res.err
    with pytest.raises(UserError):
        resolve(MemoryRequest(model=CAT.model("llama-3.1-8b"), quant="mxfp4"), MC)


def test_training_does_not_default_to_mxfp4() -> None:
    r = resolve(MemoryRequest(model=CAT.model("gpt-oss-20b"), mode="lora"), MC)
    assert r.fmt.id == "bf16"


def test_local_checkpoint_defaults_to_its_own_bytes() -> None:
    m = read_local_model(FIXTURE_20B)
    assert m.weight_format_hint == "mxfp4"
    r = resolve(MemoryRequest(model=m), MC)
    assert r.fmt.id == "mxfp4"
    assert weight_bytes(m, r.fmt).total == PUBLISHED_BYTES["gpt-oss-20b"]


def test_ollama_gpt_oss_tags_are_mxfp4_files() -> None:
    assert ollama_quant(CAT, "gpt-oss:20b") == "mxfp4"
    assert ollama_quant(CAT, "gpt-oss:120b") == "mxfp4"
    assert ollama_quant(CAT, "gpt-oss:20b-q8_0") == "q8_0"
    assert ollama_quant(CAT, "llama3.1:8b") == "q4_k_m"


def test_decode_unpacks_only_the_touched_experts() -> None:
    m = CAT.model("gpt-oss-120b")
    r = resolve(MemoryRequest(model=m), MC)
    t = decode_terms(r, 1, 4096)
    assert m.moe is not None
    share = m.moe.active_experts / m.moe.experts
    assert t.quantized_weights == pytest.approx(expert_params(m) * share)
    assert t.quantized_weights < m.active_params_b * 1e9


# ------------------------------------------------------------------ attention over KV layers


def _flops_attention(m: LlmModel, prompt: int) -> float:
    """The prompt's FLOPs less its matmuls: 2 × the weights each token multiplies (all but the
    embedding and output tables) per token, and the output head once."""
    r = resolve(MemoryRequest(model=m, quant="bf16"), MC)
    head = m.vocab_size * m.hidden_size
    body = m.active_params_b * 1e9 - head * (1 if m.tied_embeddings else 2)
    return prompt_flops(r, prompt) - prompt * 2 * body - 2 * head


def test_attention_flops_count_sliding_windows() -> None:
    """gpt-oss: 18 of 36 layers attend over a 128-token window; at a 32k prompt those layers
    cost almost nothing, so attention is about half that of all-global layers."""
    m = CAT.model("gpt-oss-120b")
    prompt = 32768
    got = _flops_attention(m, prompt)
    keys = (m.layers - m.window_layers) * prompt / 2 + m.window_layers * 128
    assert got == pytest.approx(prompt * 4 * keys * m.heads * m.head_dim)
    all_global = _flops_attention(replace_model(m, sliding_window=None), prompt)
    assert got < 0.51 * all_global


def test_attention_flops_skip_layers_without_kv() -> None:
    """A hybrid with attention in 1 of 4 layers does a quarter of the attention work."""
    m = CAT.model("llama-3.1-8b")
    hybrid = replace_model(m, attention_layers=m.layers // 4)
    prompt = 8192
    assert _flops_attention(hybrid, prompt) == pytest.approx(_flops_attention(m, prompt) / 4)


def replace_model(m: LlmModel, **changes: object) -> LlmModel:
    """A copy of a catalog model with some shape fields changed (validated again)."""
    return LlmModel.model_validate({**m.model_dump(), **changes})
