"""Architecture features of the 2025–26 catalog models in memory estimates (issue 29).

A hybrid's linear-attention layers, DSA's indexer keys, Gemma 4's wider global heads, a vision
tower and an encoder without a cache each change the estimate; each must also be named in a
note so the number is never read as a dense-model figure.
"""

from __future__ import annotations

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.catalog.catalog import Catalog
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.kv import kv_cache_bytes
from gpuwise.estimate.memory import estimate_memory
from gpuwise.estimate.request import MemoryRequest

GIB = 1024**3


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog(use_cache=False)


def _notes(est) -> set[str]:  # type: ignore[no-untyped-def]
    return {key for key, _ in est.notes}


def test_hybrid_kv_grows_in_full_attention_layers_only(cat: Catalog) -> None:
    """Qwen3-Next at 128K tokens: 12 of 48 layers cache K and V (2 heads of 256, bf16)."""
    m = cat.model("Qwen/Qwen3-Next-80B-A3B-Instruct")
    consts = MemoryConstants.from_catalog(cat)
    est = estimate_memory(
        MemoryRequest(model=m, quant="bf16", context=131072, engine="vllm"), consts
    )
    full_attention = 12 * 2 * 2 * 256 * 2 * 131072
    assert est.breakdown["kv_cache"] == pytest.approx(full_attention, rel=0.02)
    assert est.breakdown["kv_cache"] < full_attention * 48 / 12 / 3  # not the dense figure
    assert "est.note_linear_attention" in _notes(est)


def test_dsa_note_and_indexer_key_in_cache(cat: Catalog) -> None:
    m = cat.model("deepseek-ai/DeepSeek-V3.2-Exp")
    assert m.sparse_attention is not None and m.weight_format_hint == "fp8"
    dense = m.model_copy(update={"sparse_attention": None})
    latent_only = kv_cache_bytes(dense, 4096, 1, 2.0, True)
    assert kv_cache_bytes(m, 4096, 1, 2.0, True) == pytest.approx(latent_only * (576 + 128) / 576)
    est = estimate_memory(MemoryRequest(model=m, context=4096), MemoryConstants.from_catalog(cat))
    assert "est.note_sparse_attention" in _notes(est)


def test_gemma4_global_layers_cache_their_own_heads(cat: Catalog) -> None:
    """Gemma 4 31B: 50 local layers of 16 K/V heads × 256 within a 1024 window, 10 global
    layers of 4 heads × 512 over the whole context."""
    m = cat.model("google/gemma-4-31B-it")
    got = kv_cache_bytes(m, 32768, 1, 2.0, True)
    local = 50 * 2 * 16 * 256 * 2 * 1024
    wide = 10 * 2 * 4 * 512 * 2 * 32768
    assert got == local + wide


def test_vision_tower_counted_and_named_also_in_training(cat: Catalog) -> None:
    m = cat.model("qwen3-vl:8b")
    assert m.vision is not None and m.active_params_b < m.params_b
    consts = MemoryConstants.from_catalog(cat)
    serve = estimate_memory(MemoryRequest(model=m, quant="bf16"), consts)
    assert serve.breakdown["weights"] == pytest.approx(m.params_b * 1e9 * 2, rel=0.001)
    train = estimate_memory(MemoryRequest(model=m, mode="lora"), consts)
    assert "est.note_vision" in _notes(serve) and "est.note_vision" in _notes(train)


def test_encoder_keeps_no_cache_even_in_a_preallocating_engine(cat: Catalog) -> None:
    m = cat.model("BAAI/bge-m3")
    gpu = cat.gpu("L4")
    est = estimate_memory(
        MemoryRequest(model=m, engine="vllm", context=8192, batch=8),
        MemoryConstants.from_catalog(cat),
        gpu,
    )
    assert est.breakdown["kv_cache"] == 0
    assert {"est.note_encoder", "est.note_embed"} <= _notes(est)
    assert "est.note_preallocated" not in _notes(est)


def test_reranker_and_embedder_tasks_named(cat: Catalog) -> None:
    consts = MemoryConstants.from_catalog(cat)
    pairs = (
        ("Qwen/Qwen3-Reranker-4B", "est.note_rerank"),
        ("qwen3-embedding-8b", "est.note_embed"),
    )
    for name, key in pairs:
        est = estimate_memory(MemoryRequest(model=cat.model(name)), consts)
        assert key in _notes(est), name
