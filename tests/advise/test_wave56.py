"""Blind wave 56 mechanisms: a budget written per run or per year (w56-05), a deadline written
inside the workload (w56-05), spot allowed where the chosen cloud lists no spot price (w56-04)."""

from __future__ import annotations

from typing import Any

import pytest

from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import Catalog
from gpuwise.errors import UserError
from tests.advise.wave_plans import plan_of

QUARTERLY_LORA: dict[str, Any] = {
    "workload": {"kind": "train", "model": "qwen3-8b", "mode": "lora",
                 "dataset_tokens": 20_000_000, "seq_len": 2048, "runs_per_month": 0.25},
    "months": 24, "region": "eu", "entity": "company", "currency": "EUR",
    "budget": {"amount": 500, "currency": "EUR", "per": "run"},
}  # fmt: skip
"""A fine-tune every four months for two years: six runs, EUR 500 each."""


def test_a_budget_per_run_is_the_runs_times_the_amount() -> None:
    s = parse_scenario(QUARTERLY_LORA, "t")
    assert s.budget is not None and s.budget.per == "total"
    assert s.budget.amount == pytest.approx(500 * 0.25 * 24)
    assert s.budget_stated() == (500, "run", pytest.approx(6.0))


def test_a_budget_per_year_is_the_years_times_the_amount() -> None:
    doc = {**QUARTERLY_LORA, "budget": {"amount": 3000, "currency": "EUR", "per": "year"}}
    s = parse_scenario(doc, "t")
    assert s.budget is not None and s.budget.amount == pytest.approx(6000)


def test_the_plan_says_how_a_budget_per_run_was_read(cat: Catalog) -> None:
    plan = plan_of(cat, QUARTERLY_LORA)
    assert "plan.note_budget_per_run" in {key for key, _ in plan.assumptions}


def test_a_budget_per_run_of_a_standing_service_is_refused() -> None:
    doc = {"workload": {"kind": "serve", "model": "qwen3-8b", "concurrency": 4},
           "budget": {"amount": 500, "currency": "EUR", "per": "run"}}  # fmt: skip
    with pytest.raises(UserError) as err:
        parse_scenario(doc, "t")
    assert err.value.key == "plan.budget_per_run_standing"


def test_a_deadline_written_in_the_workload_is_the_scenarios() -> None:
    doc = {**QUARTERLY_LORA, "workload": {**QUARTERLY_LORA["workload"], "deadline_days": 2}}
    assert parse_scenario(doc, "t").deadline_days == 2


ALIBABA_BATCH: dict[str, Any] = {
    "workload": {"kind": "batch", "model": "qwen3-vl-8b", "samples": 200_000,
                 "prompt_tokens": 1200, "gen_tokens": 150},
    "deadline_days": 3, "providers": ["alibaba"], "region": "cn", "currency": "CNY",
    "entity": "company", "allow_spot": True,
}  # fmt: skip


def _spot_notes(plan: Any) -> list[str]:
    return [
        k for k, _ in plan.assumptions if k in ("plan.note_no_spot_price", "plan.note_no_spot_sold")
    ]


def test_spot_allowed_on_a_cloud_with_no_spot_price_is_said(cat: Catalog) -> None:
    """The on-demand answer is not read as spot weighed and lost."""
    plan = plan_of(cat, ALIBABA_BATCH)
    first = plan.options[0].candidate
    assert first.kind == "rent" and first.billing != "spot"
    assert not any(
        p.billing == "spot" for o in cat.offers if o.provider == "alibaba" for p in o.prices
    )
    assert _spot_notes(plan)


def test_no_spot_note_where_spot_is_not_allowed(cat: Catalog) -> None:
    plan = plan_of(cat, {**ALIBABA_BATCH, "allow_spot": False})
    assert not _spot_notes(plan)
