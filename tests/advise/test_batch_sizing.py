"""A one-off batch (serve with `samples`) is sized as an offline engine runs it (blind w12-05):
the running batch is kept full when no concurrency is given, it runs at the fastest format of
at least 8 bits (its cost is its hours; FP8 W8A8 is near-lossless), and a plan with nothing
to suggest does not point at an empty list of changes."""

from __future__ import annotations

import datetime as dt
from typing import Any

from gpuwise.advise.plan import Plan, make_plan
from gpuwise.advise.report import answer_lines
from gpuwise.advise.scenario import parse_scenario
from gpuwise.advise.workload import plan_value
from gpuwise.catalog import load_catalog
from gpuwise.i18n import t, using_lang

TODAY = dt.date(2026, 12, 6)
BATCH: dict[str, Any] = {
    "workload": {
        "kind": "serve",
        "model": "llama-3.3-70b",
        "samples": 2_000_000,
        "prompt_tokens": 500,
        "gen_tokens": 700,
    },
    "months": 1,
    "region": "us",
    "currency": "USD",
}


def plan_for(data: dict[str, Any]) -> Plan:
    return make_plan(load_catalog(), parse_scenario(data, "test"), TODAY)


def test_a_batch_without_concurrency_keeps_the_running_batch_full() -> None:
    plan = plan_for(BATCH)
    cap = int(plan_value(load_catalog(), "assumed_concurrency_cap"))
    assert plan.scenario.workload.concurrency == cap
    assert any(k == "plan.note_batch_concurrency_assumed" for k, _ in plan.assumptions)


def test_a_given_concurrency_is_kept() -> None:
    data = {**BATCH, "workload": {**BATCH["workload"], "concurrency": 16}}
    assert plan_for(data).scenario.workload.concurrency == 16


def test_a_batch_runs_at_eight_bits_or_more_and_names_the_quality_alternative() -> None:
    cat = load_catalog()
    floor = plan_value(cat, "batch_quality_floor_bits")
    plan = plan_for(BATCH)
    assert plan.options
    from gpuwise.estimate.constants import MemoryConstants

    mc = MemoryConstants.from_catalog(cat)
    first = plan.options[0]
    assert mc.weight_format(first.sized.quant).bits_per_weight >= floor, first.sized.quant
    for o in plan.options:  # below the floor only where nothing of 8 bits fits the cards
        if mc.weight_format(o.sized.quant).bits_per_weight < floor:
            assert not o.sized.compressed_for_target, (o.candidate.label, o.sized.quant)
    compressed = [o for o in plan.options if o.sized.compressed_for_target]
    assert compressed, "a 70B batch on Hopper/Blackwell runs faster in FP8 than in 16 bits"
    assert all(o.sized.tokens_per_s > 0 for o in compressed)


def test_no_option_and_no_fix_does_not_point_at_an_empty_list() -> None:
    data = {**BATCH, "budget": {"amount": 1, "currency": "USD", "per": "total"}}
    data["max_gpus"] = 1
    data["workload"] = {**BATCH["workload"], "model": "deepseek-v3.2"}
    plan = plan_for(data)
    if plan.options or plan.unchecked:
        return  # the catalog found a way after all: nothing to assert about the empty case
    with using_lang("en"):
        line = answer_lines(load_catalog(), plan)[0]
        expected = "plan.answer_none" if plan.suggestions else "plan.answer_none_no_fix"
        assert line == t(expected)
