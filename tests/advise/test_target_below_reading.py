"""A total speed target lower than reading speed for its concurrent requests (blind wave 8:
three expert reviewers wrote a per-user figure in target_tokens_per_s) is held to the reading
floor as well, and the plan says why, in both languages."""

from __future__ import annotations

import datetime as dt
from typing import Any

from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.advise.workload import plan_value, reading_floor
from gpuwise.catalog import load_catalog
from gpuwise.i18n import t

CAT = load_catalog()
TODAY = dt.date(2026, 12, 5)
CODING = {  # blind wave 8, w8-08 shape: 12 developers, a total target of 40 tokens/s
    "workload": {
        "kind": "serve",
        "model": "Qwen/Qwen3-Coder-30B-A3B-Instruct",
        "concurrency": 12,
        "context": 65536,
        "prompt_tokens": 24000,
        "gen_tokens": 500,
        "target_tokens_per_s": 40,
    },
    "months": 36,
    "hours_per_day": 10,
    "region": "eu",
    "entity": "company",
    "data_may_leave": False,
    "frameworks": ["vllm"],
    "currency": "EUR",
}


def _scenario(target: float) -> Any:
    data = {**CODING, "workload": {**CODING["workload"], "target_tokens_per_s": target}}
    return parse_scenario(data, "test")


def test_a_total_target_below_reading_speed_is_held_to_the_reading_floor_and_said() -> None:
    s = _scenario(40)
    floor = reading_floor(CAT, s)
    assert floor == 12 * plan_value(CAT, "min_tokens_per_s_per_request") > 40
    plan = make_plan(CAT, s, TODAY, fixes=False)
    assert plan.options
    assert all(o.sized.tokens_per_s >= floor for o in plan.options)
    notes = dict(plan.assumptions)
    params = notes["plan.note_target_below_reading"]
    assert params["each"] == 40 / 12 and params["floor"] == floor
    for lang in ("en", "zh"):
        assert "target_tokens_per_s_per_request: 40" in t(
            "plan.note_target_below_reading", lang=lang, **params
        )


def test_a_target_above_reading_speed_needs_no_note() -> None:
    s = _scenario(400)
    plan = make_plan(CAT, s, TODAY, fixes=False)
    assert "plan.note_target_below_reading" not in dict(plan.assumptions)
    assert all(o.sized.tokens_per_s >= 400 for o in plan.options)
