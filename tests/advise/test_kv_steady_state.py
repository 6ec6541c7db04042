"""Requests in flight are at every stage of their answers: a service's KV cache is sized for
each holding its prompt and half its output on average, not all at full length (blind
w12-01: 32 reasoning answers of 16k tokens reserved at 18k each pushed a 32B model to 4-bit
on four cards; at the steady state it runs FP8 on two)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from gpuwise.advise.plan import Plan, make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog

TODAY = dt.date(2026, 12, 6)


def plan_for(concurrency: int) -> Plan:
    data: dict[str, Any] = {
        "workload": {
            "kind": "serve",
            "model": "qwen2.5:32b",
            "concurrency": concurrency,
            "prompt_tokens": 2000,
            "gen_tokens": 16000,
        },
        "months": 12,
        "hours_per_day": 24,
        "region": "us",
        "currency": "USD",
    }
    return make_plan(load_catalog(), parse_scenario(data, "test"), TODAY)


def test_many_requests_hold_their_prompt_and_half_their_output() -> None:
    plan = plan_for(32)
    assert plan.options
    for o in plan.options[:5]:
        assert o.sized.kv_tokens_per_request == 2000 + 8000, o.candidate.label


def test_one_request_alone_reaches_its_full_length() -> None:
    plan = plan_for(1)
    assert plan.options
    assert plan.options[0].sized.kv_tokens_per_request == 18000


def test_the_rule_states_the_average_it_sized_for() -> None:
    plan = plan_for(32)
    params = next(p for rid, p in plan.options[0].rules if rid == "requests-not-maxima")
    assert params["held"] == 10000 and params["gen"] == 16000
