"""An embedding service with no load given says the load it assumed and what the first option
carries (input tokens/s, inputs a second, tokens a day, the wait of one batch), instead of
passing the smallest card that holds the model in silence (blind w9-03: Qwen3-Embedding-8B,
32 inputs of 512 tokens in flight, no target)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from gpuwise.advise.plan import Plan, make_plan
from gpuwise.advise.report import plan_report
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.i18n import using_lang

TODAY = dt.date(2026, 12, 6)
EMBED: dict[str, Any] = {
    "workload": {
        "kind": "serve",
        "model": "qwen3-embedding-8b",
        "concurrency": 32,
        "context": 8192,
        "prompt_tokens": 512,
        "gen_tokens": 1,
    },
    "months": 12,
    "hours_per_day": 24,
    "region": "us",
    "entity": "company",
    "budget": {"amount": 1500, "currency": "USD", "per": "month"},
    "frameworks": ["vllm"],
    "currency": "USD",
}


def _plan(data: dict[str, Any]) -> Plan:
    return make_plan(load_catalog(), parse_scenario(data, "t"), TODAY)


def _note(plan: Plan) -> dict[str, Any] | None:
    return next((p for k, p in plan.assumptions if k == "plan.note_pooling_capacity"), None)


def test_an_embedder_without_a_target_states_the_assumed_load_and_capacity() -> None:
    plan = _plan(EMBED)
    note = _note(plan)
    assert note is not None
    first = plan.options[0]
    assert note["n"] == 32 and note["prompt"] == 512
    assert note["tps"] == first.sized.tokens_per_s
    assert note["batch_s"] == 32 * 512 / note["low"]  # one batch's wait at the slow end
    assert note["per_day_en"] == note["low"] * 3600 * 24 / 1e6


def test_the_capacity_note_reads_in_both_languages() -> None:
    plan = _plan(EMBED)
    for lang, words in (("en", "No load was given"), ("zh", "没有给出负载")):
        with using_lang(lang):  # type: ignore[arg-type]
            texts = [a.text for a in plan_report(load_catalog(), plan, 8).assumptions]
        text = next(x for x in texts if words in x)
        assert "target_tokens_per_s" in text and "{" not in text


def test_an_embedder_with_a_target_gets_no_capacity_note() -> None:
    sized = {**EMBED, "workload": {**EMBED["workload"], "target_tokens_per_s": 2000}}
    assert _note(_plan(sized)) is None
