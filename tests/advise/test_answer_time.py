"""A served answer that takes minutes is said in minutes (blind w12-01: a reasoning model's
16k-token answers at about 20 tokens/s per user, an 11-20 minute wait nothing flagged)."""

from __future__ import annotations

import datetime as dt

from gpuwise.advise.plan import Plan, make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog


def plan_for(gen_tokens: int) -> Plan:
    data = {
        "workload": {
            "kind": "serve",
            "model": "qwen2.5:32b",
            "concurrency": 32,
            "prompt_tokens": 2000,
            "gen_tokens": gen_tokens,
        },
        "months": 12,
        "hours_per_day": 24,
        "region": "us",
        "currency": "USD",
    }
    return make_plan(load_catalog(), parse_scenario(data, "test"), dt.date(2026, 12, 6))


def _note(plan: Plan) -> dict[str, float] | None:
    return next((p for k, p in plan.assumptions if k == "plan.note_answer_time"), None)


def test_a_long_answer_is_said_in_minutes_from_the_first_options_speed() -> None:
    plan = plan_for(16000)
    note = _note(plan)
    assert note is not None
    o = plan.options[0]
    per_request = o.sized.tokens_per_s / 32
    assert abs(note["minutes"] - 16000 / per_request / 60) < 1e-6
    assert note["slow_minutes"] >= note["minutes"]


def test_a_short_answer_says_nothing() -> None:
    assert _note(plan_for(256)) is None
