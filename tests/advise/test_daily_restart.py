"""A standing service rented by the hour for part of the day is priced for its busy hours,
which means a nightly stop and a morning start: the risk says so, with the always-on cost
(reasons._restart_risk; blind w18-01)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.catalog.schema_cloud import HOURS_PER_MONTH

RAG: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "qwen2.5-14b", "concurrency": 16,
                 "prompt_tokens": 6000, "gen_tokens": 500, "target_tokens_per_s_per_request": 15},
    "months": 24, "hours_per_day": 10, "region": "cn", "entity": "company", "currency": "CNY",
}  # fmt: skip


def _plan(**change: Any) -> Any:
    return make_plan(load_catalog(), parse_scenario({**RAG, **change}, "t"), dt.date(2026, 12, 6))


@pytest.fixture(scope="module")
def plan() -> Any:
    return _plan()


def _loses_gpu(o: Any) -> bool:
    """Kept running: a platform that loses the card at a stop, or a container platform whose
    restarts no source confirms (stop_start.restart_unconfirmed): billed every hour."""
    return o.busy_hours_per_month >= HOURS_PER_MONTH * (1 - 1e-9)


def test_hourly_rentals_of_a_part_day_service_carry_the_risk(plan: Any) -> None:
    hourly = [
        o
        for o in plan.options
        if o.candidate.billing in ("on-demand", "spot") and not _loses_gpu(o)
    ]
    assert hourly
    for o in hourly:
        risk = dict(o.risks).get("risk.daily_restart")
        assert risk is not None, o.candidate.label
        assert risk["hours"] == 10
    first = hourly[0]
    expected = first.cost.items["compute"] * HOURS_PER_MONTH / first.busy_hours_per_month
    assert (
        dict(first.risks)["risk.daily_restart"]["always_on"]
        .replace(",", "")
        .endswith(f"{expected:.0f}")
    )


def test_no_risk_around_the_clock_or_on_a_monthly_plan(plan: Any) -> None:
    for o in _plan(hours_per_day=24).options:
        assert "risk.daily_restart" not in dict(o.risks)
    for o in plan.options:
        if o.candidate.billing in ("monthly", "yearly") or o.candidate.kind == "own":
            assert "risk.daily_restart" not in dict(o.risks), o.candidate.label


def test_a_rental_that_loses_its_gpu_when_stopped_is_priced_running() -> None:
    """Blind w29-01: where a stopped instance gives its GPU back to the market (AutoDL), a
    service is kept running: billed every hour of the month, the saving of a stop said in a
    rule, never priced as a nightly stop."""
    plan = _plan(region="cn")
    every = plan.options + plan.infeasible + plan.unchecked
    kept = [o for o in every if _loses_gpu(o) and o.candidate.billing in ("on-demand", "spot")]
    assert kept, "no hourly rental on a provider whose stopped instances lose their GPU"
    for o in kept:
        assert o.busy_hours_per_month == pytest.approx(HOURS_PER_MONTH), o.candidate.label
        assert "risk.daily_restart" not in dict(o.risks), o.candidate.label
        rules = dict(o.rules)
        rule = rules.get("kept-running") or rules.get("kept-running-unconfirmed")
        assert rule is not None and rule["hours"] == 10, (o.candidate.label, o.rules)
    around = _plan(hours_per_day=24)
    for o in around.options:
        assert "kept-running" not in dict(o.rules), o.candidate.label
