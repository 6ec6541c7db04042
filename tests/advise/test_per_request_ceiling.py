"""A per-request speed target that no number of replicas reaches at the slow end of the band
is said as a ceiling and ranked after the options more hardware would mend, never priced as
"1.46x this hardware" (advise/margin.per_request_check; blind w23-03)."""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

import pytest

from gpuwise.advise.margin import (
    PER_REQUEST_CEILING,
    per_request_ceiling,
    shortfall_factor,
    slow_tokens_per_s,
)
from gpuwise.advise.plan import make_plan
from gpuwise.advise.ranking import TIERS, rank_key
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog

REASONING: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "deepseek-r1-distill-qwen-32b", "concurrency": 16,
                 "prompt_tokens": 2000, "gen_tokens": 4000,
                 "target_tokens_per_s_per_request": 12},
    "months": 36, "hours_per_day": 12, "region": "cn", "data_may_leave": False,
    "domestic_only": True, "resale_pct": 0, "entity": "company", "site": "server-room",
    "currency": "CNY",
}  # fmt: skip


@pytest.fixture(scope="module")
def plan() -> Any:
    return make_plan(load_catalog(), parse_scenario(REASONING, "t"), dt.date(2026, 12, 6))


def _every(plan: Any) -> list[Any]:
    return [*plan.options, *plan.infeasible, *plan.unchecked]


def test_a_request_alone_is_never_slower_than_in_a_batch(plan: Any) -> None:
    """The ceiling is an upper bound: one request alone decodes at least as fast as each of a
    replica's batch of requests does (the weights are read once a step either way)."""
    known = [o for o in _every(plan) if o.sized.speed_known and o.sized.speed.decode_tokens_per_s]
    assert known
    for o in known:
        sp = o.sized.speed
        batch = math.ceil(16 / max(1, o.sized.replicas))
        assert sp.single_stream_tokens_per_s >= sp.decode_tokens_per_s / batch * 0.999


def test_the_ceiling_risk_holds_where_replicas_cannot_reach_the_target(plan: Any) -> None:
    capped = [o for o in _every(plan) if any(k == PER_REQUEST_CEILING for k, _ in o.risks)]
    assert capped, "the 310P cards meet 12 tokens/s per request only at the central estimate"
    for o in capped:
        params = next(p for k, p in o.risks if k == PER_REQUEST_CEILING)
        ceiling = per_request_ceiling(o.sized)
        assert ceiling is not None and ceiling < params["each"] == 12
        assert o.sized.tokens_per_s >= params["target"] > slow_tokens_per_s(o.sized)
        assert shortfall_factor(o.risks) == 1.0  # no cost multiplier for an unmendable gap


def test_capped_options_rank_after_the_others_in_their_tier(plan: Any) -> None:
    key = rank_key(plan.scenario)
    tiers = [key(o)[:TIERS] for o in plan.options]
    assert tiers == sorted(tiers)
    index = TIERS - 1
    for o in plan.options:
        assert key(o)[index] == any(k == PER_REQUEST_CEILING for k, _ in o.risks)
