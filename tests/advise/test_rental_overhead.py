"""An institution's indirect costs on rentals (blind w9-07: a US university lab's 3-year plan
compared cloud at list price with buying, while its grant charges its F&A rate on cloud
services and not on equipment). The rate is charged on every rental's whole bill and on no
purchase, only when the scenario gives it; an institution that gives none is told."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from gpuwise.advise.plan import Plan, make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog

CAT = load_catalog()


def _lab(**over: Any) -> Plan:
    scenario: dict[str, Any] = {
        "name": "lab-lora",
        "workload": {
            "kind": "train",
            "model": "qwen2.5:7b",
            "mode": "lora",
            "dataset_tokens": 50_000_000,
            "runs_per_month": 4,
        },
        "months": 24,
        "region": "us",
        "entity": "institution",
        "frameworks": ["pytorch"],
        "currency": "USD",
    }
    scenario.update(over)
    return make_plan(CAT, parse_scenario(scenario, "t"), dt.date(2026, 12, 6))


def _by_label(plan: Plan) -> dict[str, Any]:
    return {o.candidate.label: o for o in [*plan.options, *plan.infeasible]}


def test_the_rate_is_charged_on_rentals_whole_bills_and_never_on_purchases() -> None:
    plain, charged = _by_label(_lab()), _by_label(_lab(rental_overhead_pct="55%"))
    rentals = [k for k, o in plain.items() if o.candidate.kind == "rent" and k in charged]
    owned = [k for k, o in plain.items() if o.candidate.kind == "own" and k in charged]
    assert rentals and owned
    for k in rentals:
        bill = sum(plain[k].cost.items.values())
        assert charged[k].cost.items["indirect_costs"] == pytest.approx(0.55 * bill)
        assert charged[k].cost.total == pytest.approx(plain[k].cost.total * 1.55)
    for k in owned:
        assert "indirect_costs" not in charged[k].cost.items
        assert charged[k].cost.total == pytest.approx(plain[k].cost.total)


def test_an_institution_without_a_rate_is_told_and_one_with_a_rate_or_a_company_is_not() -> None:
    def noted(plan: Plan) -> bool:
        return any(k == "plan.note_rental_overhead_unset" for k, _ in plan.assumptions)

    assert noted(_lab())
    assert not noted(_lab(rental_overhead_pct=0))
    assert not noted(_lab(entity="company"))
    # a Chinese institute's grant fixes its indirect costs in the budget: no US F&A advice
    assert not noted(_lab(region="cn", currency="CNY"))
