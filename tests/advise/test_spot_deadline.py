"""A run with a deadline takes spot capacity where the deadline leaves slack for reclaims and
waits for capacity (margin.spot_slack_check, plan assumption spot_deadline_slack; blind
w16-01: a 9-hour fine-tune due in 5 days had spot removed outright)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from gpuwise.advise.margin import slow_hours
from gpuwise.advise.plan import Plan, make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.advise.workload import plan_value
from gpuwise.catalog import load_catalog
from tests.advise.invariants import check_plan

TODAY = dt.date(2026, 12, 6)


@pytest.fixture(scope="module")
def cat() -> Any:
    return load_catalog()


def _run(deadline_days: float, **extra: Any) -> dict[str, Any]:
    return {
        "workload": {"kind": "train", "model": "qwen2.5-7b", "mode": "lora",
                     "dataset_tokens": 3e8, "seq_len": 2048},
        "months": 1, "deadline_days": deadline_days, "region": "us", "currency": "USD",
        **extra,
    }  # fmt: skip


def _plan(cat: Any, data: dict[str, Any]) -> Plan:
    return make_plan(cat, parse_scenario(data, "test"), TODAY)


def _spot(plan: Plan) -> list[Any]:
    return [o for o in plan.options if o.candidate.billing == "spot"]


def test_a_run_with_slack_gets_spot(cat: Any) -> None:
    plan = _plan(cat, _run(10))
    spot = _spot(plan)
    assert spot, [o.candidate.label for o in plan.options[:5]]
    slack = plan_value(cat, "spot_deadline_slack")
    for o in spot:
        assert slow_hours(o.sized, o.time_hours) * slack <= 10 * 24
    check_plan(cat, plan)


def test_spot_is_held_to_the_slack_not_the_deadline_alone(cat: Any) -> None:
    """Every spot option ranked leaves the slack; one that meets the deadline but not the
    slack is infeasible with its own reason."""
    plan = _plan(cat, _run(1))
    slack = plan_value(cat, "spot_deadline_slack")
    for o in _spot(plan):
        assert slow_hours(o.sized, o.time_hours) * slack * o.candidate.nodes <= 24
    held = [
        o for o in plan.infeasible
        if o.candidate.billing == "spot" and [k for k, _ in o.blockers] == ["plan.block_spot_slack"]
    ]  # fmt: skip
    assert held
    for o in held:
        long = slow_hours(o.sized, o.time_hours)
        # it meets the deadline (the central estimate, the deadline's own check), not the
        # slack: N machines wait N times (margin.spot_slack_check)
        assert o.time_hours <= 24 < long * slack * o.candidate.nodes


def test_allow_spot_true_takes_the_deadline_as_it_is(cat: Any) -> None:
    plan = _plan(cat, _run(1, allow_spot=True))
    assert not any(k == "plan.block_spot_slack" for o in plan.infeasible for k, _ in o.blockers)


def test_allow_spot_false_still_leaves_spot_out(cat: Any) -> None:
    plan = _plan(cat, _run(10, allow_spot=False))
    assert not _spot(plan)
    assert plan.dropped.get("spot-not-for-this-job")
