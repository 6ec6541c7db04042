"""Mixture-of-experts servers do not set what a dense model's prefill GEMMs reach
(estimate/speed_fit_shares.py `moe_factors`, `_fit_moe_prefill`; blind w24-01, w25-04: vLLM's
FP8 share on Hopper was learnt from DeepSeek-R1 and Qwen3-235B servers alone, and every dense
FP8 model on vLLM was priced at it)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.estimate.speed_constants import SpeedConstants
from gpuwise.estimate.speed_fit_shares import moe_factors

HOPPER = "hopper sm_90"


@pytest.fixture(scope="module")
def sc() -> Any:
    return SpeedConstants.from_catalog(load_catalog())


def test_the_factor_is_the_mean_ratio_where_both_were_measured() -> None:
    key_a = ("vllm", "cuda", "Ampere sm_80", "bf16")
    key_h = ("vllm", "cuda", "Hopper sm_90", "bf16")
    only_moe = ("vllm", "cuda", "Hopper sm_90", "fp8")
    dense = [(key_a, "d1", 0.5), (key_a, "d2", 0.5), (key_h, "d3", 0.4)]
    moe = [(key_a, "m1", 0.25), (key_h, "m2", 0.4), (only_moe, "m3", 0.1)]
    factors = moe_factors(dense, moe)
    assert factors["vllm"] == pytest.approx(math.sqrt(0.5 * 1.0))  # fp8 has no dense twin
    assert factors["any"] == factors["vllm"]
    assert moe_factors(dense, []) == {}


def test_a_dense_model_never_takes_the_engines_moe_share(sc: Any) -> None:
    """Where an engine's MoE servers were measured on a card, the dense share there is their
    share divided by the engine's MoE factor (< 1): higher, never the MoE value itself."""
    moe = [p for p in sc.prefill if p.model_kind == "moe" and p.architecture.lower() == HOPPER]
    assert moe, "the shipped fit has MoE shares on Hopper"
    for entry in moe:
        dense = sc.prefill_fraction(entry.engine, entry.backend, HOPPER, entry.rate)
        mixed = sc.prefill_fraction(entry.engine, entry.backend, HOPPER, entry.rate, moe=True)
        assert mixed.fraction == entry.fraction
        assert dense.model_kind == "any"
        assert dense.fraction > mixed.fraction


def test_a_moe_model_on_another_card_takes_the_dense_chain(sc: Any) -> None:
    """An engine's MoE runs on one card say less about another card than the dense chain does,
    which holds those runs too (divided by the engine's factor)."""
    archs = {
        p.architecture.lower() for p in sc.prefill if (p.model_kind, p.engine) == ("moe", "vllm")
    }
    unseen = "ada lovelace sm_89"
    assert unseen not in archs
    dense = sc.prefill_fraction("vllm", "cuda", unseen, "fp8")
    assert sc.prefill_fraction("vllm", "cuda", unseen, "fp8", moe=True) == dense
