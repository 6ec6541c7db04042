"""`first_token_s`: a service whose users wait on the first token (a game NPC, a voice agent)
is checked against one prompt's prefill and the queue of prompts at the stated load, at the
slow end of its band (advise/limits.py; blind w46-03 wrote `max_ttft_s` and was refused; w53-03:
a voice agent's limit was checked on an idle engine)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from gpuwise.advise.limits import prompt_arrivals, queued_wait
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


def _wait(o: Any, plan: Any) -> tuple[float, float]:
    """The central and slow-end wait with the stated load's queue."""
    speed = o.sized.speed
    band = (speed.band or {}).get("time_to_first_token_s")
    slow = max(band) if band else speed.time_to_first_token_s
    arrivals = prompt_arrivals(plan.scenario, o.sized)
    return queued_wait(speed.time_to_first_token_s, arrivals), queued_wait(slow, arrivals)


def test_a_loose_limit_changes_nothing() -> None:
    loose, none = _plan(30.0), _plan(None)
    assert [o.candidate.label for o in loose.options[:5]] == [
        o.candidate.label for o in none.options[:5]
    ]


def test_every_option_is_checked_against_the_limit() -> None:
    limit = 0.08
    plan = _plan(limit)
    for o in plan.options:
        central, slow = _wait(o, plan)
        keys = {k for k, _ in o.risks}
        assert central <= limit
        slow_risks = {"risk.first_token_band", "risk.prefill_saturated_band"}
        assert (slow > limit) == bool(slow_risks & keys)
    for o in plan.infeasible:
        first_token = ("plan.block_first_token", "plan.block_first_token_saturated")
        if any(k in first_token for k, _ in o.blockers):
            assert _wait(o, plan)[0] > limit


def test_a_loaded_engine_queues_prompts_for_their_first_token() -> None:
    """Pollaczek-Khinchine for a deterministic prefill: the wait grows with the load and has
    no bound once prompts arrive faster than a copy prefills them."""
    assert queued_wait(0.05, 0.0) == 0.05
    assert queued_wait(0.05, 10.0) == 0.05 + 0.5 * 0.05 / (2 * 0.5)
    assert queued_wait(0.05, 20.0) == float("inf")
    plan = _plan(0.3)
    loaded = [o for o in plan.options if prompt_arrivals(plan.scenario, o.sized) > 0]
    assert loaded
    for o in loaded:
        assert _wait(o, plan)[0] > o.sized.speed.time_to_first_token_s
