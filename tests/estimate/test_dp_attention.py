"""DP attention for MLA models (estimate/layout.py): the layout that needs fewer bytes per GPU.

Under tensor parallelism every GPU holds the whole latent KV cache of an MLA model; DP attention
gives each GPU its share of the sequences and a whole copy of the attention weights. Left to
choose, gpuwise never takes the layout that needs more memory, keeps the user's explicit choice,
and says which one it took.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import tomllib

from gpuwise.catalog import load_catalog
from gpuwise.catalog.catalog import Catalog
from gpuwise.errors import UserError
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.layout import attention_weight_bytes
from gpuwise.estimate.memory import estimate_memory
from gpuwise.estimate.request import MemoryRequest
from gpuwise.estimate.resolve import resolve
from gpuwise.estimate.speed_cases import prepare_case
from gpuwise.estimate.speed_constants import SpeedConstants
from gpuwise.estimate.speed_decode import decode_terms


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog(use_cache=False)


def _req(
    cat: Catalog, batch: int, strategy: str = "none", model: str = "deepseek-v3.2"
) -> MemoryRequest:
    return MemoryRequest(
        model=cat.model(model), quant="fp8", batch=batch, context=2800, prompt_tokens=2000,
        gpus=8, engine="sglang", strategy=strategy,
    )  # fmt: skip


@pytest.mark.parametrize("batch", [1, 16, 64, 256])
def test_auto_layout_never_needs_more_memory_than_either(cat: Catalog, batch: int) -> None:
    mc = MemoryConstants.from_catalog(cat)
    auto, tp, dp = (
        estimate_memory(_req(cat, batch, s), mc) for s in ("none", "tp", "dp-attention")
    )
    weights_kv = [e.breakdown["weights"] + e.breakdown["kv_cache"] for e in (auto, tp, dp)]
    assert weights_kv[0] <= min(weights_kv[1:]) + 1


def test_dp_attention_splits_the_latent_cache_and_copies_the_attention(cat: Catalog) -> None:
    mc = MemoryConstants.from_catalog(cat)
    r_tp, r_dp = resolve(_req(cat, 256, "tp"), mc), resolve(_req(cat, 256), mc)
    assert (r_tp.strategy, r_dp.strategy) == ("tp", "dp-attention")
    t_tp, t_dp = decode_terms(r_tp, 256, 2400), decode_terms(r_dp, 256, 2400)
    assert t_dp.kv_bytes == pytest.approx(t_tp.kv_bytes / 8, rel=1e-6)
    extra = attention_weight_bytes(r_dp.req.model, r_dp.fmt) * 7 / 8
    assert t_dp.weight_bytes - t_tp.weight_bytes == pytest.approx(extra, rel=1e-6)
    assert 10e9 < attention_weight_bytes(r_dp.req.model, r_dp.fmt) < 14e9  # 12.3 B params, FP8


def test_small_batches_keep_tensor_parallel_attention(cat: Catalog) -> None:
    assert resolve(_req(cat, 1), MemoryConstants.from_catalog(cat)).strategy == "tp"


def test_the_chosen_layout_is_named_in_a_note(cat: Catalog) -> None:
    est = estimate_memory(_req(cat, 256), MemoryConstants.from_catalog(cat))
    assert "est.note_dp_attention" in {key for key, _ in est.notes}


def test_dp_attention_on_a_model_without_mla_is_refused(cat: Catalog) -> None:
    req = _req(cat, 64, "dp-attention", model="qwen3-32b").with_(quant="bf16")
    with pytest.raises(UserError) as err:
        resolve(req, MemoryConstants.from_catalog(cat))
    assert err.value.key == "estimate.no_dp_attention"


def test_measured_tensor_parallel_cases_stay_tensor_parallel(cat: Catalog) -> None:
    """Published engine runs on several GPUs were plain --tp runs: the fit sees them as such."""
    path = Path(__file__).parents[1] / "data" / "speed_cases.toml"
    cases = tomllib.loads(path.read_text(encoding="utf-8"))["case"]
    mc, sc = MemoryConstants.from_catalog(cat), SpeedConstants.from_catalog(cat)
    mla = [c for c in cases if "deepseek-r1-671b" in c["id"] and "excluded" not in c]
    assert mla
    for c in mla:
        assert prepare_case(cat, mc, c, sc).r.strategy == "tp"
