"""`first_token_s`: a service whose users wait on the first token (a game NPC, a voice agent)
is checked against one prompt's prefill at the slow end of its band (advise/limits.py; blind
w46-03 wrote `max_ttft_s` and was refused)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog

CAT = load_catalog()
NPC: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "qwen3-8b", "concurrency": 200, "prompt_tokens": 800,
                 "gen_tokens": 60, "target_tokens_per_s_per_request": 15},
    "months": 24, "hours_per_day": 18, "region": "cn", "currency": "CNY", "entity": "company",
}  # fmt: skip


def _plan(seconds: float | None) -> Any:
    data = {**NPC, "workload": {**NPC["workload"], "first_token_s": seconds}}
    return make_plan(CAT, parse_scenario(data, "t"), dt.date(2026, 12, 7))


def _wait(o: Any) -> tuple[float, float]:
    speed = o.sized.speed
    band = (speed.band or {}).get("time_to_first_token_s")
    return speed.time_to_first_token_s, max(band) if band else speed.time_to_first_token_s


def test_a_loose_limit_changes_nothing() -> None:
    loose, none = _plan(30.0), _plan(None)
    assert [o.candidate.label for o in loose.options[:5]] == [
        o.candidate.label for o in none.options[:5]
    ]


def test_every_option_is_checked_against_the_limit() -> None:
    limit = 0.08
    plan = _plan(limit)
    for o in plan.options:
        central, slow = _wait(o)
        keys = {k for k, _ in o.risks}
        assert central <= limit
        assert (slow > limit) == ("risk.first_token_band" in keys)
    for o in plan.infeasible:
        if any(k == "plan.block_first_token" for k, _ in o.blockers):
            assert _wait(o)[0] > limit
