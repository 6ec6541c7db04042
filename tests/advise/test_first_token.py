"""A long prompt's first-token wait is said beside the plan where it passes the attention limit
(advise/notes.first_token_note, blind w26-04: an 80k-token RAG service at 12-25 s before the
first word, shown only as tokens/s of the answer)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.advise.workload import plan_value
from gpuwise.catalog import load_catalog

TODAY = dt.date(2026, 12, 6)


def _plan(prompt: int) -> Any:
    data = {
        "workload": {"kind": "serve", "model": "qwen2.5-32b", "engine": "vllm",
                     "concurrency": 4, "prompt_tokens": prompt, "gen_tokens": 500},
        "months": 6, "hours_per_day": 10, "region": "us", "entity": "company",
        "currency": "USD", "max_gpus": 2,
    }  # fmt: skip  # two GPUs at most: eight MI300X prefill 100k tokens under the limit
    return make_plan(load_catalog(), parse_scenario(data, "t"), TODAY)


def test_a_long_prompt_states_its_first_token_wait() -> None:
    plan = _plan(100_000)
    (params,) = [p for k, p in plan.assumptions if k == "plan.note_first_token"]
    speed = plan.options[0].sized.speed
    assert params["seconds"] == speed.time_to_first_token_s
    assert params["slow_seconds"] >= plan_value(load_catalog(), "first_token_wait_seconds")
    assert params["slow_seconds"] >= params["seconds"]


def test_a_short_prompt_does_not() -> None:
    plan = _plan(2_000)
    assert not [k for k, _ in plan.assumptions if k == "plan.note_first_token"]
