"""国产化 preferred but not required (`domestic_preference_pct`): options on Chinese-made
accelerators rank as if they cost that share less, their bills unchanged (blind w20-04: an
Atlas option 11% dearer than a GeForce pair ranked #58)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from gpuwise.advise.candidates import DOMESTIC_VENDORS
from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog

HOSPITAL: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "qwen2.5-14b", "concurrency": 20,
                 "prompt_tokens": 1500, "gen_tokens": 400, "target_tokens_per_s_per_request": 12},
    "months": 36, "hours_per_day": 10, "region": "cn", "entity": "institution",
    "site": "server-room", "data_may_leave": False, "currency": "CNY",
}  # fmt: skip


def _plan(**change: Any) -> Any:
    return make_plan(
        load_catalog(), parse_scenario({**HOSPITAL, **change}, "t"), dt.date(2026, 12, 6)
    )


def _first_domestic(plan: Any) -> int:
    return next(i for i, o in enumerate(plan.options) if o.candidate.gpu.vendor in DOMESTIC_VENDORS)


def test_a_stated_preference_moves_domestic_options_up_without_changing_bills() -> None:
    plain, preferred = _plan(), _plan(domestic_preference_pct=20)
    assert _first_domestic(preferred) < _first_domestic(plain)
    totals = {o.candidate.label: o.cost.total for o in plain.options}
    for o in preferred.options:
        if o.candidate.label in totals:
            assert o.cost.total == totals[o.candidate.label]
    assert any(k == "plan.note_domestic_preference" for k, _ in preferred.assumptions)
