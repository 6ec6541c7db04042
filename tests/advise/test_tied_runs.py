"""A cost tie between runs of a job with an end goes to the run that ends sooner (at the long
end of its band, where deadlines are checked), and the answer says so (advise/ties.py;
blind w11-04: 4× A100 for 332 h and 8× A100 for 166 h at the same price, the 4-card run
442 h at its long end against a 480 h deadline)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from gpuwise.advise.evaluate import caveated, incomplete_capex
from gpuwise.advise.labels import option_label
from gpuwise.advise.margin import ranking_total, slow_hours
from gpuwise.advise.plan import Plan, make_plan
from gpuwise.advise.report import answer_lines
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.cost.power import assumption
from gpuwise.i18n import using_lang

TODAY = dt.date(2026, 12, 2)
CPT = {
    "workload": {
        "kind": "train",
        "model": "qwen2.5:1.5b",
        "mode": "full",
        "dataset_tokens": 100_000_000_000,
        "seq_len": 4096,
        "epochs": 1,
    },
    "months": 1,
    "deadline_days": 20,
    "region": "cn",
    "entity": "company",
    "frameworks": ["pytorch", "flash_attention"],  # a pre-training stack: NVIDIA rentals only
}


def plan_for(data: dict[str, Any]) -> Plan:
    return make_plan(load_catalog(), parse_scenario(data, "test"), TODAY)


def _tier_mates(plan: Plan) -> list[Any]:
    """Options tied on ranking total with the first (within the prices' uncertainty)."""
    margin = assumption(load_catalog(), "price_uncertainty_fraction").value
    first = plan.options[0]
    limit = ranking_total(first.cost.total, first.risks) * (1 + margin)
    return [
        o
        for o in plan.options
        if o.time_hours
        and o.candidate.already_owned == first.candidate.already_owned
        and caveated(o) == caveated(first)
        and incomplete_capex(o) == incomplete_capex(first)
        and ranking_total(o.cost.total, o.risks) <= limit
    ]


def test_no_tied_option_ends_sooner_than_the_first_at_the_long_end() -> None:
    plan = plan_for(CPT)
    first = plan.options[0]
    assert first.time_hours
    first_long = slow_hours(first.sized, first.time_hours)
    for o in _tier_mates(plan):
        assert slow_hours(o.sized, o.time_hours or 0.0) >= first_long - 1e-6


def test_the_shorter_run_wins_a_cost_tie_with_a_cheaper_longer_one() -> None:
    plan = plan_for(CPT)
    x = plan.answers.decided_by_time
    assert x is not None
    first = plan.options[0]
    cheaper = next(o for o in plan.options if option_label(o) == x.cheaper)
    assert cheaper.cost.total < first.cost.total
    assert x.shorter_long_hours < x.cheaper_long_hours <= x.deadline_hours  # type: ignore[operator]
    assert first.time_hours and first.time_hours < x.cheaper_hours
    assert first.candidate.gpu.id == cheaper.candidate.gpu.id  # same card, more of it
    assert first.candidate.count > cheaper.candidate.count


def test_the_answer_says_time_decided_the_tie_with_the_deadline_slack() -> None:
    plan = plan_for(CPT)
    x = plan.answers.decided_by_time
    assert x is not None and x.deadline_hours == 480
    with using_lang("en"):
        text = " ".join(answer_lines(load_catalog(), plan))
    assert "ends sooner, which decides the tie" in text
    assert f"{480 - x.shorter_long_hours:,.0f} h before the 480 h deadline" in text
    with using_lang("zh"):
        zh = " ".join(answer_lines(load_catalog(), plan))
    assert "完成得更快" in zh and "480 小时的期限" in zh


def test_a_standing_service_is_never_reordered_by_time() -> None:
    service = {
        "workload": {"kind": "serve", "model": "llama3.1:8b", "concurrency": 8},
        "months": 12,
        "hours_per_day": 24,
        "region": "us",
        "currency": "USD",
    }
    plan = plan_for(service)
    assert plan.answers.decided_by_time is None


def test_an_own_rent_tie_keeps_its_decider_when_the_faster_rental_leads() -> None:
    """w10-05: 2× RTX PRO 6000 owned (159 h a run) and 8× B200 rented (5 h) cost the same
    within 5%: the rental leads for its turnaround, and the first answer still says 'either'
    with the runs a month above which owning wins, though the rental's total is a floor."""
    from pathlib import Path

    import yaml

    cases = yaml.safe_load((Path(__file__).parent / "blind_wave10.yaml").read_text("utf-8"))
    plan = plan_for(next(c for c in cases if c["id"] == "w10-05")["scenario"])
    if plan.answers.buy_or_rent != "either" or plan.answers.decided_by_time is None:
        pytest.skip("no tie in this catalog: nothing to decide")
    first = plan.options[0]
    assert all(first.time_hours <= (o.time_hours or 0) for o in _tier_mates(plan))  # type: ignore[operator]
    with using_lang("en"):
        line = answer_lines(load_catalog(), plan)[0]
    assert line.startswith("Buy or rent? Either") and "runs a month" in line
