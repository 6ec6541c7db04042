"""Blind w13-01, w15-01: a coding assistant's speed is per request, not the service's total.

`target_tokens_per_s` is the total over the concurrent requests (what an engine's throughput
benchmark reports); reviewers wrote a per-developer figure there. The per-request field sizes
the service for it × concurrency, the higher of the two where both are given.
"""

from __future__ import annotations

from gpuwise.advise.scenario import parse_scenario
from gpuwise.advise.workload import with_assumed_concurrency
from gpuwise.catalog import load_catalog


def _workload(**fields: object):  # type: ignore[no-untyped-def]
    data = {"kind": "serve", "model": "qwen2.5-coder-32b", "concurrency": 10, **fields}
    return parse_scenario({"workload": data}, "t").workload


def test_a_per_request_target_is_sized_over_every_request() -> None:
    assert _workload(target_tokens_per_s_per_request=30).target_tokens_per_s == 300


def test_the_higher_of_a_total_and_a_per_request_target_holds() -> None:
    both = _workload(target_tokens_per_s=500, target_tokens_per_s_per_request=30)
    assert both.target_tokens_per_s == 500
    low = _workload(target_tokens_per_s=100, target_tokens_per_s_per_request=30)
    assert low.target_tokens_per_s == 300


def test_no_per_request_target_leaves_the_total_alone() -> None:
    assert _workload(target_tokens_per_s=120).target_tokens_per_s == 120
    assert _workload().target_tokens_per_s is None


def test_a_per_request_target_keeps_its_own_requests_in_flight() -> None:
    data = {"kind": "serve", "model": "qwen2.5-coder-32b", "target_tokens_per_s_per_request": 60}
    s = parse_scenario({"workload": data}, "t")
    kept, assumed = with_assumed_concurrency(load_catalog(), s)
    assert assumed is None
    assert (kept.workload.concurrency, kept.workload.target_tokens_per_s) == (1, 60)
