"""gen_tokens: 0 is an embedder's or reranker's (it generates nothing); a generating model given
0 is one clear line (advise/workload.generation_of; blind w44-05 was refused it for an
embedding job)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.errors import UserError

EMBED: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "bge-m3", "prompt_tokens": 400, "gen_tokens": 0,
                 "concurrency": 32},
    "months": 3, "hours_per_day": 8, "region": "eu", "entity": "company", "currency": "EUR",
}  # fmt: skip


def test_an_embedder_takes_no_generated_tokens() -> None:
    plan = make_plan(load_catalog(), parse_scenario(EMBED, "t"), dt.date(2026, 12, 7))
    assert plan.options


def test_a_generating_model_with_none_is_one_clear_error() -> None:
    data = {**EMBED, "workload": {**EMBED["workload"], "model": "qwen3-8b"}}
    with pytest.raises(UserError) as err:
        make_plan(load_catalog(), parse_scenario(data, "t"), dt.date(2026, 12, 7))
    assert err.value.key == "plan.gen_tokens_zero"
