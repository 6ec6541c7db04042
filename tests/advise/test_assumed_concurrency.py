"""A total speed target with no concurrency is sized with the requests in flight it implies
(blind w10-03 and w10-06: 4,630 and 2,000 tokens/s judged by one request's speed, answered
"no option" and "64 machines"): target ÷ reading speed, at most an engine's default running
batch, and the plan says so. A concurrency the user gives is kept."""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.advise.workload import plan_value, with_assumed_concurrency
from gpuwise.catalog import load_catalog

CAT = load_catalog()


def _service(**workload: Any) -> dict[str, Any]:
    return {
        "name": "team-service",
        "workload": {"kind": "serve", "model": "qwen2.5:14b", **workload},
        "months": 12,
        "region": "us",
        "entity": "company",
        "frameworks": ["vllm"],
        "currency": "USD",
    }


def test_the_target_sets_the_requests_in_flight_up_to_the_engines_batch() -> None:
    per_request = plan_value(CAT, "min_tokens_per_s_per_request")
    cap = plan_value(CAT, "assumed_concurrency_cap")
    small = parse_scenario(_service(target_tokens_per_s=100), "t")
    big = parse_scenario(_service(target_tokens_per_s=5000), "t")
    assert with_assumed_concurrency(CAT, small)[1] == math.ceil(100 / per_request)
    s, n = with_assumed_concurrency(CAT, big)
    assert n == cap and s.workload.concurrency == cap


def test_a_given_concurrency_and_a_service_without_target_are_kept() -> None:
    given = parse_scenario(_service(target_tokens_per_s=5000, concurrency=8), "t")
    assert with_assumed_concurrency(CAT, given) == (given, None)
    plain = parse_scenario(_service(), "t")
    assert with_assumed_concurrency(CAT, plain) == (plain, None)


def test_a_high_total_target_gets_a_ranked_option_and_the_assumption_said() -> None:
    plan = make_plan(
        CAT, parse_scenario(_service(target_tokens_per_s=3000), "t"), dt.date(2026, 12, 6)
    )
    assert plan.options, plan.suggestions
    assert plan.options[0].sized.tokens_per_s >= 3000
    assert any(k == "plan.note_concurrency_assumed" for k, _ in plan.assumptions)
