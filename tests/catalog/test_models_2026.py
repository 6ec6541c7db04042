"""Models added for issue 29.1 (open-weight releases of 2025-H2 and 2026): they load, their
names resolve, hybrid layers are counted the way their configs lay them out, and the shapes
add up to the totals their vendors publish."""

from __future__ import annotations

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.catalog.params import count_params

NEW_MODELS = [
    "nemotron-nano-9b-v2",
    "nemotron-nano-12b-v2",
    "nemotron-3-nano-30b-a3b",
    "glm-4.7-flash",
    "kimi-k2.5",
    "bge-reranker-v2-m3",
    "granite-4.0-h-small",
    "ministral-3-3b",
    "deepseek-v3.1",
    "nomic-embed-text-v1.5",
    "gte-qwen2-7b-instruct",
    "qwen3.5-9b",
    "qwen3.5-4b",
    "minimax-m2.1",
]


@pytest.fixture(scope="module")
def cat():  # type: ignore[no-untyped-def]
    return load_catalog()


@pytest.mark.parametrize("model_id", NEW_MODELS)
def test_new_model_is_in_the_catalog(cat, model_id: str) -> None:  # type: ignore[no-untyped-def]
    assert cat.model(model_id).id == model_id


@pytest.mark.parametrize(
    ("name", "model_id"),
    [
        ("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "nemotron-3-nano-30b-a3b"),
        ("nvidia/NVIDIA-Nemotron-Nano-9B-v2", "nemotron-nano-9b-v2"),
        ("zai-org/GLM-4.7-Flash", "glm-4.7-flash"),
        ("moonshotai/Kimi-K2.5", "kimi-k2.5"),
        ("BAAI/bge-reranker-v2-m3", "bge-reranker-v2-m3"),
        ("granite4:small-h", "granite-4.0-h-small"),
        ("ibm-granite/granite-4.0-h-small", "granite-4.0-h-small"),
        ("mistralai/Ministral-3-3B-Instruct-2512", "ministral-3-3b"),
        ("deepseek-ai/DeepSeek-V3.1", "deepseek-v3.1"),
        ("nomic-embed-text", "nomic-embed-text-v1.5"),
        ("Alibaba-NLP/gte-Qwen2-7B-instruct", "gte-qwen2-7b-instruct"),
        ("Qwen/Qwen3.5-9B", "qwen3.5-9b"),
    ],
)
def test_new_model_names_resolve(cat, name: str, model_id: str) -> None:  # type: ignore[no-untyped-def]
    assert cat.model(name).id == model_id


def test_nemotron_h_blocks_hold_one_mixer_each(cat) -> None:  # type: ignore[no-untyped-def]
    """Pattern MEMEM*E...: 23 Mamba-2, 6 attention and 23 MoE blocks make the 52 layers, so
    only 6 layers keep a KV cache and every block has a single norm."""
    m = cat.model("nemotron-3-nano-30b-a3b")
    assert m.kv_layers == 6
    assert m.ssm is not None and m.ssm.layers == 23
    assert m.moe is not None and m.ffn_layers == m.moe.moe_layers == 23
    assert m.kv_layers + m.ssm.layers + m.ffn_layers == m.layers
    assert m.norms_per_layer == 1


def test_granite_hybrid_layers_each_carry_an_moe_block(cat) -> None:  # type: ignore[no-untyped-def]
    """Granite 4.0-H: 36 Mamba-2 + 4 attention mixers, each followed by an MoE block."""
    m = cat.model("granite-4.0-h-small")
    assert m.kv_layers == 4
    assert m.ssm is not None and m.kv_layers + m.ssm.layers == m.layers
    assert m.moe is not None and m.moe.moe_layers == m.layers


@pytest.mark.parametrize(
    ("model_id", "published_total_b", "published_active_b"),
    [
        # arXiv 2512.20848: 31.6B total, 3.6B active with embeddings
        ("nemotron-3-nano-30b-a3b", 31.6, 3.6),
        # NVIDIA technical blog on Kimi K2.5: 32.86B active (total given only as "1T")
        ("kimi-k2.5", None, 32.86),
        # DeepSeek-V3.1 model card: 671B total, 37B activated
        ("deepseek-v3.1", 671.0, 37.0),
        # Granite-4.0-H-Small: 32B total, 9B active
        ("granite-4.0-h-small", 32.2, 9.0),
    ],
)
def test_shapes_add_up_to_the_published_totals(  # type: ignore[no-untyped-def]
    cat, model_id: str, published_total_b: float | None, published_active_b: float
) -> None:
    counts = count_params(cat.model(model_id))
    if published_total_b is not None:
        assert counts.total / 1e9 == pytest.approx(published_total_b, rel=0.01)
    assert counts.active / 1e9 == pytest.approx(published_active_b, rel=0.03)
