"""A restartable training run gets spot capacity where it is cheaper (issue 29: the blind
reviewer's LoRA of a 14B model, one run, no deadline, was planned on-demand on a marketplace
because the plan left spot out whenever the data set's size was not given)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog

TODAY = dt.date(2026, 12, 6)
LORA_14B: dict[str, Any] = {
    "workload": {"kind": "train", "model": "qwen2.5:14b", "mode": "lora", "runs_per_month": 1},
    "months": 1,
    "region": "us",
    "currency": "USD",
}


def _scenario(**extra: Any) -> Any:
    return parse_scenario({**LORA_14B, **extra}, "test")


def test_training_without_dataset_size_or_deadline_allows_spot() -> None:
    assert _scenario().spot_allowed()


def test_training_with_a_deadline_gets_spot_held_to_its_slack() -> None:
    s = _scenario(deadline_days=3)
    assert s.spot_allowed() and s.spot_needs_slack()
    assert not _scenario(deadline_days=3, allow_spot=True).spot_needs_slack()


def test_explicit_no_spot_wins_for_training() -> None:
    assert not _scenario(allow_spot=False).spot_allowed()


def test_service_still_leaves_spot_out_by_default() -> None:
    s = parse_scenario(
        {"workload": {"kind": "serve", "model": "qwen2.5:14b"}, "region": "us", "currency": "USD"},
        "test",
    )
    assert not s.spot_allowed()


def test_restartable_lora_14b_ranks_a_spot_option_first_when_it_is_cheaper() -> None:
    plan = make_plan(load_catalog(), _scenario(), TODAY)
    first = plan.options[0]
    assert first.candidate.billing == "spot", first.candidate.label
    assert "spot_rework" in first.cost.items  # the interruption model priced the rework
    on_demand = [o for o in plan.options if o.candidate.billing == "on-demand"]
    assert on_demand and first.cost.total < on_demand[0].cost.total


def test_single_gpu_spot_prices_are_listed_for_l40s_a100_h100() -> None:
    """The cards an expert would rent interruptibly for a 14B LoRA each have a single-GPU spot
    price somewhere in the catalog, below that offer's on-demand price."""
    cat = load_catalog()
    found = {}
    for offer in cat.offers:
        spot, od = offer.price("spot"), offer.price("on-demand")
        if offer.gpu_count == 1 and spot is not None:
            found.setdefault(offer.gpu, []).append((offer.provider, spot.per_hour, od))
    for gpu in ("l40s", "a100-80gb", "a100-80gb-pcie", "h100-sxm", "l4", "a10g"):
        assert gpu in found, gpu
        for _provider, spot_rate, od in found[gpu]:
            assert od is None or spot_rate < od.per_hour
