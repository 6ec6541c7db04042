"""DeepSeek-V4's compressed attention (schema_arch.CompressedAttention) against the figures its
release published: at a 1M-token context V4-Pro keeps 10% of DeepSeek-V3.2's KV cache and needs
27% of its single-token FLOPs, V4-Flash 7% and 10% (the DeepSeek-V4 technical report, as quoted
in catalog source `hf-deepseek-v4-pro-card-borish`). The shapes also add up to the published
totals (284B Flash, 1.6T Pro), and the checkpoint's FP4 experts + FP8 rest is what is loaded.
"""

from __future__ import annotations

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.catalog.catalog import Catalog
from gpuwise.catalog.params import count_params
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.kv import attended_keys, indexer_keys, kv_cache_bytes
from gpuwise.estimate.request import MemoryRequest
from gpuwise.estimate.resolve import resolve
from gpuwise.estimate.speed_decode import decode_terms
from gpuwise.estimate.weights import weight_bytes

MILLION = 1_000_000


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog(use_cache=False)


def _flops_per_token(cat: Catalog, model: str, context: int) -> float:
    mc = MemoryConstants.from_catalog(cat)
    req = MemoryRequest(model=cat.model(model), quant="fp8" if "v3" in model else "mxfp4",
                        batch=1, context=context, gpus=8, engine="vllm")  # fmt: skip
    return decode_terms(resolve(req, mc), 1, context).flops * 8  # all 8 GPUs' share


@pytest.mark.parametrize(
    ("model", "published"), [("deepseek-v4-pro", 0.10), ("deepseek-v4-flash", 0.07)]
)
def test_kv_cache_at_a_million_tokens_against_v32(
    cat: Catalog, model: str, published: float
) -> None:
    v4 = kv_cache_bytes(cat.model(model), MILLION, 1, 1.0, True)
    v32 = kv_cache_bytes(cat.model("deepseek-v3.2"), MILLION, 1, 1.0, True)
    assert v4 / v32 == pytest.approx(published, rel=0.2)


@pytest.mark.parametrize(
    ("model", "published"), [("deepseek-v4-pro", 0.27), ("deepseek-v4-flash", 0.10)]
)
def test_single_token_flops_at_a_million_tokens_against_v32(
    cat: Catalog, model: str, published: float
) -> None:
    ratio = _flops_per_token(cat, model, MILLION) / _flops_per_token(cat, "deepseek-v3.2", MILLION)
    assert ratio == pytest.approx(published, rel=0.3)


def test_the_cache_is_a_window_plus_compressed_entries(cat: Catalog) -> None:
    m = cat.model("deepseek-v4-flash")
    ca = m.compressed_attention
    assert ca is not None and (ca.csa_layers, ca.hca_layers, m.layers) == (21, 20, 43)
    inside = kv_cache_bytes(m, 100, 1, 1.0, True)  # all within the 128-token window
    assert inside == 43 * 100 * 512 + 21 * 25 * (512 + 128) + 20 * 1 * 512
    long_a, long_b = (kv_cache_bytes(m, n, 1, 1.0, True) for n in (256_000, 512_000))
    per_token = (long_b - long_a) / 256_000  # past the window only compressed entries grow
    assert per_token == pytest.approx(21 * (512 + 128) / 4 + 20 * 512 / 128, rel=1e-3)
    assert kv_cache_bytes(m, 4096, 1, 1.0, True, tp=8) == kv_cache_bytes(m, 4096, 1, 1.0, True)


def test_attention_reads_the_window_top_k_and_heavy_entries(cat: Catalog) -> None:
    m = cat.model("deepseek-v4-pro")
    assert attended_keys(m, 100) == 61 * 100 + 30 * 25 + 31 * 1
    assert attended_keys(m, MILLION) == 61 * 128 + 30 * 1024 + 31 * 7813
    assert indexer_keys(m, MILLION) == 30 * 250_000


@pytest.mark.parametrize(
    ("model", "total_b"), [("deepseek-v4-flash", 284.0), ("deepseek-v4-pro", 1600.0)]
)
def test_shapes_add_up_to_the_published_totals(cat: Catalog, model: str, total_b: float) -> None:
    assert count_params(cat.model(model)).total / 1e9 == pytest.approx(total_b, rel=0.02)


def test_the_shipped_checkpoint_keeps_its_rest_in_fp8(cat: Catalog) -> None:
    """Experts at 4.25 bits and the rest at 8: about 146 GB for Flash (a 1:1 GGUF of the
    checkpoint is ~146 GB, catalog note); the rest at 16 bits would add about 6 GB."""
    m = cat.model("deepseek-v4-flash")
    fmt = next(f for f in MemoryConstants.from_catalog(cat).weight_formats if f.id == "mxfp4")
    shipped = weight_bytes(m, fmt).total
    assert 140e9 < shipped < 160e9
    as_gpt_oss = weight_bytes(m.model_copy(update={"hint_rest_bits": None}), fmt).total
    assert as_gpt_oss - shipped > 4e9


def test_a_decode_step_reads_the_picked_entries_not_the_whole_cache(cat: Catalog) -> None:
    """Blind w46-01: V4-Flash at 120k tokens read its whole compressed cache every step; its
    CSA layers read every index key and the top-k entries only (HCA layers and windows whole)."""
    from gpuwise.estimate.kv import kv_read_bytes

    m = cat.model("deepseek-v4-flash")
    whole = kv_cache_bytes(m, 120_000, 1, 1.0, True)
    read = kv_read_bytes(m, 120_000, 1, 1.0, True)
    csa = 21 * (30_000 * 128 + 512 * 512)
    assert read == 43 * 128 * 512 + csa + 20 * 938 * 512
    assert read < whole / 2
    short = kv_read_bytes(m, 1000, 1, 1.0, True)  # every entry is picked: the whole cache
    assert short == kv_cache_bytes(m, 1000, 1, 1.0, True)
    v32 = cat.model("deepseek-v3.2")  # DSA: every index key, 2,048 picked latents
    assert kv_read_bytes(v32, 100_000, 1, 1.0, True) == 61 * (100_000 * 128 + 2048 * 576)
