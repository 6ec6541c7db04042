"""A scenario may say what its hardware fetches at the end (`resale_pct`): a state-owned
enterprise that disposes of assets by its own rules sets 0, and no resale is credited
(blind w18-04: 30% was credited on an SOE's server)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog

SOE: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "qwen2.5-72b", "concurrency": 30,
                 "prompt_tokens": 3000, "gen_tokens": 600, "target_tokens_per_s_per_request": 12},
    "months": 36, "hours_per_day": 10, "region": "cn", "entity": "company",
    "domestic_only": True, "data_may_leave": False, "site": "server-room", "currency": "CNY",
}  # fmt: skip


def _owned(data: dict[str, Any]) -> list[Any]:
    plan = make_plan(load_catalog(), parse_scenario(data, "t"), dt.date(2026, 12, 6))
    return [o for o in (*plan.options, *plan.infeasible) if o.candidate.kind == "own"]


def test_no_resale_is_credited_where_the_scenario_says_none() -> None:
    default = _owned(SOE)
    assert any(o.cost.items.get("resale", 0.0) < 0 for o in default)
    for o in _owned({**SOE, "resale_pct": 0}):
        assert o.cost.items.get("resale", 0.0) == 0.0, o.candidate.label
