"""An organisation's GeForce card in its server room carries the licence risk too (NVIDIA's
GeForce licence excludes data-centre deployment; blind w20-04: a hospital's server room)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.advise.site import geforce_licensed
from gpuwise.catalog import load_catalog

SERVE: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "qwen2.5-14b", "concurrency": 8},
    "months": 36, "hours_per_day": 10, "region": "cn", "data_may_leave": False,
    "currency": "CNY",
}  # fmt: skip


def _own_geforce(**change: Any) -> list[Any]:
    plan = make_plan(load_catalog(), parse_scenario({**SERVE, **change}, "t"), dt.date(2026, 12, 6))
    return [o for o in plan.options if o.candidate.kind == "own" and geforce_licensed(o)]


def test_an_institution_server_room_is_told() -> None:
    found = _own_geforce(entity="institution", site="server-room")
    assert found and all("risk.geforce_server_room" in dict(o.risks) for o in found)


def test_a_person_at_home_is_not() -> None:
    found = _own_geforce(entity="individual", site="home")
    assert found and not any("risk.geforce_server_room" in dict(o.risks) for o in found)
