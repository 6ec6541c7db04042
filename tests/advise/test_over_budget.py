"""What the budget left out is said: the faster options only the budget blocks, on the
cost/speed front (advise/over_budget.py; blind w18-02: the RTX 5090 a user asked about
vanished under a $3,500 budget without a word)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from gpuwise.advise.evaluate import incomplete_capex
from gpuwise.advise.over_budget import STEP_UP, _speed, _within_reach, over_budget_note
from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog

LOCAL: dict[str, Any] = {
    "workload": {"kind": "local", "model": "qwen3-30b-a3b-2507", "context": 32768},
    "months": 24, "hours_per_day": 3, "region": "us", "entity": "individual",
    "budget": {"amount": 2500, "currency": "USD", "per": "total"}, "currency": "USD",
}  # fmt: skip


@pytest.fixture(scope="module")
def plan() -> Any:
    return make_plan(load_catalog(), parse_scenario(LOCAL, "t"), dt.date(2026, 12, 6))


def _blocked_by_budget_only(plan: Any) -> list[Any]:
    return [o for o in plan.infeasible if [k for k, _ in o.blockers] == ["plan.block_budget"]]


def test_the_note_names_the_steps_up_the_budget_blocks(plan: Any) -> None:
    notes = [p for k, p in plan.assumptions if k == "plan.note_over_budget"]
    assert len(notes) == 1
    blocked = _blocked_by_budget_only(plan)
    # faster than every option the budget allows, not only the first (blind w33-05)
    best = max(_speed(o) for o in plan.options if o.sized.speed_known)
    priced = [o for o in blocked if not incomplete_capex(o)]  # no card price: no total to name
    front = sorted(
        (o for o in priced if _speed(o) > best * STEP_UP and _within_reach(o)),
        key=lambda o: o.cost.total,
    )
    assert front, "the budget blocks a faster option"
    cheapest = front[0]
    assert cheapest.candidate.gpu.name in notes[0]["items_en"]
    assert notes[0]["items_zh"] and notes[0]["items_zh"] != notes[0]["items_en"]


def test_no_note_without_a_budget_or_when_nothing_faster_is_blocked(plan: Any) -> None:
    free = {k: v for k, v in LOCAL.items() if k != "budget"}
    unbudgeted = make_plan(load_catalog(), parse_scenario(free, "t"), dt.date(2026, 12, 6))
    assert not over_budget_note(unbudgeted)
    rich = {**LOCAL, "budget": {"amount": 10**7, "currency": "USD", "per": "total"}}
    assert not over_budget_note(
        make_plan(load_catalog(), parse_scenario(rich, "t"), dt.date(2026, 12, 6))
    )


def test_an_option_without_its_card_price_is_never_named() -> None:
    """A total of host and power alone is no price (blind w22-04: four H100 PCIe 'at EUR 3,025
    in all'). A tighter budget than the others' so that a host alone breaks it for some card
    the catalog has no price for (a machine for local use is off when unused, so its power
    alone no longer does)."""
    tight = {**LOCAL, "budget": {"amount": 1500, "currency": "USD", "per": "total"}}
    plan = make_plan(load_catalog(), parse_scenario(tight, "t"), dt.date(2026, 12, 6))
    notes = [p for k, p in plan.assumptions if k == "plan.note_over_budget"]
    assert notes, "the budget blocks a faster option"
    unpriced = [o for o in _blocked_by_budget_only(plan) if incomplete_capex(o)]
    assert unpriced, "the catalog lacks a price for some card the budget blocks"
    for o in unpriced:
        from gpuwise.advise.labels import candidate_words

        assert candidate_words(o.candidate, "en") not in notes[0]["items_en"]
