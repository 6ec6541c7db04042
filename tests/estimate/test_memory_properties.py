"""Invariants of the memory model, over many generated inputs (hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuwise.catalog import load_catalog
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.memory import estimate_memory
from gpuwise.estimate.request import MemoryRequest

CAT = load_catalog(use_cache=False)
CONSTS = MemoryConstants.from_catalog(CAT)
MODELS = [
    "llama-3.1-8b",
    "qwen2.5-7b",
    "mixtral-8x7b",
    "gemma-2-9b",
    "deepseek-v2-lite",
    "qwen3-30b-a3b",
    "gpt-oss-20b",
]
MODES = ["inference", "full", "lora", "qlora"]


def _req(model: str, mode: str, **kw: object) -> MemoryRequest:
    return MemoryRequest(model=CAT.model(model), mode=mode, **kw)  # type: ignore[arg-type]


def _total(req: MemoryRequest) -> int:
    return estimate_memory(req, CONSTS).device_total_bytes


common = settings(max_examples=60, deadline=None)


@common
@given(st.sampled_from(MODELS), st.sampled_from(MODES), st.integers(1, 64), st.integers(1, 64))
def test_never_decreases_with_batch(model: str, mode: str, a: int, b: int) -> None:
    lo, hi = sorted((a, b))
    assert _total(_req(model, mode, batch=lo)) <= _total(_req(model, mode, batch=hi))


@common
@given(
    st.sampled_from(MODELS), st.sampled_from(MODES), st.integers(16, 65536), st.integers(16, 65536)
)
def test_never_decreases_with_context(model: str, mode: str, a: int, b: int) -> None:
    lo, hi = sorted((a, b))
    if mode == "inference":
        assert _total(_req(model, mode, context=lo)) <= _total(_req(model, mode, context=hi))
    else:
        assert _total(_req(model, mode, seq_len=lo)) <= _total(_req(model, mode, seq_len=hi))


@common
@given(
    st.sampled_from(MODELS),
    st.sampled_from(["lora", "qlora"]),
    st.integers(1, 512),
    st.integers(1, 512),
)
def test_never_decreases_with_rank(model: str, mode: str, a: int, b: int) -> None:
    lo, hi = sorted((a, b))
    assert _total(_req(model, mode, lora_rank=lo)) <= _total(_req(model, mode, lora_rank=hi))


@common
@given(
    st.sampled_from(MODELS),
    st.sampled_from(MODES),
    st.integers(1, 8),
    st.integers(128, 32768),
    st.sampled_from(["none", "ddp", "zero2", "zero3", "fsdp", "zero3-offload"]),
)
def test_parts_add_up(model: str, mode: str, batch: int, length: int, strategy: str) -> None:
    gpus = 1 if strategy == "none" or mode == "inference" else 4
    req = _req(
        model,
        mode,
        batch=batch,
        seq_len=length,
        context=length,
        gpus=gpus,
        strategy=strategy if mode != "inference" else "none",
    )
    est = estimate_memory(req, CONSTS)
    assert sum(est.breakdown.values()) == est.device_total_bytes
    outside = est.breakdown["allocator_reserve"] + est.breakdown["cuda_context"]
    assert est.allocated_peak_bytes == est.device_total_bytes - outside
    assert est.low_bytes <= est.device_total_bytes <= est.high_bytes
    assert all(v >= 0 for v in est.breakdown.values())


@common
@given(st.sampled_from(MODELS), st.sampled_from(["full", "lora", "qlora"]))
def test_zero3_falls_as_gpus_are_added(model: str, mode: str) -> None:
    totals = [_total(_req(model, mode, gpus=n, strategy="zero3")) for n in (2, 4, 8, 16)]
    assert totals == sorted(totals, reverse=True) and totals[0] > totals[-1]


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("context", [512, 8192])
def test_quantizing_never_raises_the_total(model: str, context: int) -> None:
    order = ["fp32", "bf16", "int8-gptq", "fp8", "nf4", "int4-gptq", "nf4-dq"]
    totals = [_total(_req(model, "inference", quant=q, context=context)) for q in order]
    assert totals == sorted(totals, reverse=True)
    ggufs = ["f16-gguf", "q8_0", "q6_k", "q5_k_m", "q4_k_m", "q3_k_m", "q2_k"]
    totals = [
        _total(_req(model, "inference", quant=q, context=context, engine="llama.cpp"))
        for q in ggufs
    ]
    assert totals == sorted(totals, reverse=True)


def test_kv_cache_is_architecture_aware() -> None:
    """GQA stores fewer heads, sliding windows cap tokens, MLA stores a small latent."""

    def kv(model: str, context: int, engine: str = "vllm") -> int:
        return estimate_memory(
            _req(model, "inference", context=context, engine=engine), CONSTS
        ).breakdown["kv_cache"]

    # Llama 3.1 8B: 32 layers × 8 KV heads × 128 × 2 (K,V) × 2 bytes = 128 KiB per token
    assert kv("llama-3.1-8b", 8192) == 8192 * 32 * 8 * 128 * 2 * 2
    gemma = CAT.model("gemma-2-9b")
    assert gemma.sliding_window
    assert kv("gemma-2-9b", 8192) < kv("gemma-2-9b", 4096) * 2  # half the layers stop at 4096
    # DeepSeek V2 Lite caches a 512 + 64 latent per layer in vLLM, full heads in transformers
    assert kv("deepseek-v2-lite", 4096) * 5 < kv("deepseek-v2-lite", 4096, "transformers")
