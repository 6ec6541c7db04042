"""A request's prompt and answer fit its context (blind w11-01: an 8,000-token prompt was cut
to 3,596 by the default context of 4,096, sizing memory and prefill for less than half the
work), and local chat shared by several people holds a context per person (blind w11-05: five
staff sharing a Mac were sized as one)."""

from __future__ import annotations

import datetime as dt

import pytest

from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.errors import UserError

CAT = load_catalog()


def test_no_context_given_widens_it_to_hold_prompt_and_answer() -> None:
    s = parse_scenario(
        {
            "workload": {
                "kind": "serve",
                "model": "qwen2.5:7b",
                "prompt_tokens": 8000,
                "gen_tokens": 300,
            }
        },
        "t",
    )
    assert s.workload.context == 8300


def test_a_context_given_smaller_than_the_request_is_one_clear_error() -> None:
    with pytest.raises(UserError) as err:
        parse_scenario(
            {
                "workload": {
                    "kind": "serve",
                    "model": "qwen2.5:7b",
                    "prompt_tokens": 8000,
                    "context": 4096,
                }
            },
            "f.yaml",
        )
    assert err.value.key == "plan.prompt_exceeds_context"


def test_local_chat_for_several_people_holds_a_context_each() -> None:
    def used(n: int) -> float:
        w = {"kind": "local", "model": "qwen2.5:14b", "concurrency": n, "context": 8192}
        plan = make_plan(
            CAT,
            parse_scenario({"workload": w, "currency": "USD", "region": "us"}, "t"),
            dt.date(2026, 12, 6),
        )
        o = next(
            o
            for o in plan.options
            if o.candidate.gpu.id == "rtx-4090" and o.sized.quant == "q4_k_m"
        )
        return o.sized.memory.breakdown["kv_cache"]

    assert used(4) == pytest.approx(4 * used(1), rel=0.01)
