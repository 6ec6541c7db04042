"""A public institution in mainland China pays what it sells equipment for into the treasury
(State Council Decree 738, art. 25): bought hardware is credited no resale unless the scenario
says otherwise (advise/public_assets.py)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from gpuwise.advise.plan import Plan, make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog

LAB: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "qwen2.5-7b", "engine": "vllm", "concurrency": 8},
    "months": 36, "hours_per_day": 10, "region": "cn", "entity": "institution",
    "currency": "CNY", "data_may_leave": False,
}  # fmt: skip


def _plan(data: dict[str, Any]) -> Plan:
    return make_plan(load_catalog(), parse_scenario(data, "t"), dt.date(2026, 12, 7))


def _bought(plan: Plan) -> list[Any]:
    return [o for o in plan.options if o.candidate.kind == "own" and not o.candidate.already_owned]


def test_a_chinese_institution_is_credited_no_resale_and_told_why() -> None:
    plan = _plan(LAB)
    assert _bought(plan)
    for o in _bought(plan):
        assert o.cost.items.get("resale", 0.0) == 0.0, o.candidate.label
    assert any(k == "plan.note_public_body_resale" for k, _ in plan.assumptions)


def test_a_company_or_a_stated_share_keeps_its_resale() -> None:
    for data in ({**LAB, "entity": "company"}, {**LAB, "resale_pct": 30}):
        plan = _plan(data)
        assert not any(k == "plan.note_public_body_resale" for k, _ in plan.assumptions)
        assert any(o.cost.items.get("resale", 0.0) < 0 for o in _bought(plan))
