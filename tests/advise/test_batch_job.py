"""A serve workload given `samples` is a one-off batch (blind w9-02: 2 M tickets labelled in
3 days was billed as a service kept up 8 h a day for a month, 5× the expert's cost, and its
deadline never checked). It is timed from its tokens and its option's throughput, billed for
those hours, held to its deadline, and not to a reading speed nobody reads at."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from gpuwise.advise.evaluate import run_hours
from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.advise.workload import reading_floor
from gpuwise.catalog import load_catalog

CAT = load_catalog()
TODAY = dt.date(2026, 12, 6)


def _labelling(**over: Any) -> dict[str, Any]:
    scenario: dict[str, Any] = {
        "name": "batch-labelling",
        "workload": {
            "kind": "serve",
            "model": "qwen2.5:7b",
            "samples": 200_000,
            "prompt_tokens": 800,
            "gen_tokens": 150,
            "concurrency": 64,
            "context": 2048,
        },
        "months": 1,
        "region": "us",
        "entity": "company",
        "frameworks": ["vllm"],
        "currency": "USD",
    }
    scenario.update(over)
    return scenario


def test_a_batch_is_timed_by_its_tokens_over_the_options_throughput() -> None:
    s = parse_scenario(_labelling(), "t")
    plan = make_plan(CAT, s, TODAY)
    assert plan.options
    for o in plan.options[:10]:
        hours = 200_000 * 150 / o.sized.tokens_per_s / 3600
        assert o.time_hours is not None
        assert hours - 1e-9 <= o.time_hours <= hours + 0.5  # a rental adds its session's start
        assert run_hours(s, o.sized) == pytest.approx(hours)
        if o.candidate.kind == "rent":
            assert o.busy_hours_per_month == pytest.approx(hours)  # billed for the run only


def test_a_batch_is_not_billed_for_its_hours_a_day() -> None:
    short = make_plan(CAT, parse_scenario(_labelling(hours_per_day=2), "t"), TODAY)
    long = make_plan(CAT, parse_scenario(_labelling(hours_per_day=24), "t"), TODAY)
    assert short.options[0].cost.total == pytest.approx(long.options[0].cost.total)


def test_a_batch_deadline_blocks_options_too_slow_for_it() -> None:
    plan = make_plan(CAT, parse_scenario(_labelling(deadline_days=0.25), "t"), TODAY)
    for o in plan.options:
        assert (o.time_hours or 0) <= 6.0 + 1e-6
    assert any(k == "plan.block_deadline" for o in plan.infeasible for k, _ in o.blockers)


def test_a_batch_has_no_reading_floor_but_a_service_does() -> None:
    assert reading_floor(CAT, parse_scenario(_labelling(), "t")) is None
    service = _labelling()
    del service["workload"]["samples"]
    assert reading_floor(CAT, parse_scenario(service, "t"))


def test_a_job_with_an_end_and_no_months_is_one_run() -> None:
    """A backlog of samples (or a training run) whose scenario gives neither months nor runs a
    month is planned as one run, said in a note (blind w20-01: billed twelve times)."""
    import datetime as dt

    from gpuwise.advise.plan import make_plan
    from gpuwise.advise.scenario import parse_scenario
    from gpuwise.catalog import load_catalog

    base = {"workload": {"kind": "serve", "model": "qwen2.5-7b", "samples": 200000,
                         "prompt_tokens": 500, "gen_tokens": 100}, "region": "us",
            "currency": "USD"}  # fmt: skip
    cat, today = load_catalog(), dt.date(2026, 12, 6)
    once = make_plan(cat, parse_scenario(base, "t"), today)
    assert once.scenario.months == 1 and once.scenario.one_run_assumed()
    assert any(k == "plan.note_one_run" for k, _ in once.assumptions)
    monthly = make_plan(cat, parse_scenario({**base, "months": 12}, "t"), today)
    assert not monthly.scenario.one_run_assumed()
    assert monthly.options[0].cost.total > once.options[0].cost.total * 5
