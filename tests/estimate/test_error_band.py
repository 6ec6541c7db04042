"""Error bands (issue 28): percentiles of held-out errors, pooled by kind, engine and card
class, carried by every speed figure, and the pessimistic end a plan can size by."""

from __future__ import annotations

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.request import MemoryRequest
from gpuwise.estimate.resolve import resolve
from gpuwise.estimate.speed import SpeedEstimate, SpeedInputs, inference_speed
from gpuwise.estimate.speed_band import MIN_CASES, error_bands, percentile
from gpuwise.estimate.speed_constants import SpeedConstants
from gpuwise.estimate.train_speed import training_speed

CAT = load_catalog()
MC = MemoryConstants.from_catalog(CAT)
SC = SpeedConstants.from_catalog(CAT)


def test_percentile_interpolates_between_order_statistics() -> None:
    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0], 0.5) == 3.0
    assert percentile([5.0, 1.0], 0.1) == pytest.approx(1.4)
    assert percentile([2.0], 0.9) == 2.0


def test_a_group_needs_its_own_cases_or_takes_its_parents_band() -> None:
    few = [("decode", "sglang", "datacenter", 1.5)] * (MIN_CASES - 1)
    many = [("decode", "llama.cpp", "consumer", r / 10) for r in range(8, 8 + MIN_CASES)]
    keys = {(b.kind, b.engine, b.card_class) for b in error_bands(few + many)}
    assert ("decode", "sglang", "datacenter") not in keys
    assert ("decode", "llama.cpp", "consumer") in keys
    assert ("decode", "any", "any") in keys
    pooled = next(b for b in error_bands(few + many) if b.engine == "any" and b.card_class == "any")
    assert pooled.cases == 2 * MIN_CASES - 1
    chosen = SC.band("decode", "sglang", "nonexistent-class")
    assert chosen is not None and chosen.kind == "decode"


def test_every_speed_figure_carries_its_band_and_times_invert_it() -> None:
    gpu = CAT.gpu_by_id("h100-sxm")
    req = MemoryRequest(model=CAT.model("llama-3.1-8b"), engine="vllm", context=2048)
    est = inference_speed(resolve(req, MC), SC, SpeedInputs(gpu=gpu, concurrency=16))
    assert est.band is not None
    for name in ("decode_tokens_per_s", "prefill_tokens_per_s", "serving_tokens_per_s"):
        low, high = est.band[name]
        assert low < getattr(est, name) < high
    low_t, high_t = est.band["time_to_first_token_s"]
    assert low_t < (est.time_to_first_token_s or 0) < high_t
    assert est.pessimistic_tokens_per_s == est.band["serving_tokens_per_s"][0]
    assert "band" in est.as_dict()


def test_training_carries_a_band_for_rate_step_and_hours() -> None:
    gpu = CAT.gpu_by_id("a100-80gb")
    req = MemoryRequest(model=CAT.model("llama-3.1-8b"), mode="lora", quant="bf16")
    est = training_speed(resolve(req, MC), SC, SpeedInputs(gpu=gpu, train_tokens=1e8))
    assert est.band is not None
    assert est.band["train_time_h"][0] < (est.train_time_h or 0) < est.band["train_time_h"][1]
    assert (est.pessimistic_tokens_per_s or 0) < (est.train_tokens_per_s or 0)


def test_pessimistic_end_without_band_data_is_the_figure() -> None:
    est = SpeedEstimate(bound="compute", decode_tokens_per_s=42.0)
    assert est.pessimistic_tokens_per_s == 42.0
    assert est.headline_tokens_per_s == 42.0
    assert SpeedEstimate(bound="unknown").pessimistic_tokens_per_s is None


def test_a_band_always_holds_the_estimate_itself() -> None:
    """A group the model under-predicts throughout (every ratio above 1) must not give a
    'pessimistic' end faster than the estimate: the band widens to 1 instead."""
    slow_model = [("decode", "vllm", "consumer", 1.1 + r / 100) for r in range(MIN_CASES)]
    band = next(b for b in error_bands(slow_model) if b.engine == "vllm")
    assert band.p10 == 1.0 and band.p90 > 1.1


def test_a_parent_band_is_pooled_from_the_cases_its_children_left() -> None:
    """The majority engine's own group keeps its cases out of the class's pool, so a minority
    engine on that class is not handed the majority's narrow band."""
    majority = [("prefill", "llama.cpp", "datacenter", 0.95 + r / 1000) for r in range(40)]
    minority = [
        ("prefill", e, "datacenter", 0.5 + r / 10)
        for e in ("vllm", "sglang")
        for r in range(MIN_CASES // 2 + 1)
    ]
    bands = {(b.engine, b.card_class): b for b in error_bands(majority + minority)}
    pooled = bands[("any", "datacenter")]
    assert pooled.cases == len(minority)
    assert pooled.p10 < 0.6 and pooled.p90 > 1.0  # not the majority's 0.95–0.99
