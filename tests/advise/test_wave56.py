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


BANK_DATA_CENTRE: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "qwen3-14b", "concurrency": 15,
                 "prompt_tokens": 4000, "gen_tokens": 300,
                 "target_tokens_per_s_per_request": 20},
    "months": 60, "hours_per_day": 10, "days_per_week": 5, "region": "eu",
    "data_may_leave": False, "site": "datacenter", "entity": "company", "currency": "EUR",
    "budget": {"amount": 80000, "currency": "EUR", "per": "total"},
}  # fmt: skip
"""w55-01: a private bank's adviser assistant in its own data centre."""


def _bought_consumer(plan: Any) -> set[str]:
    return {
        o.candidate.gpu.id
        for o in plan.options + plan.infeasible + plan.unchecked
        if o.candidate.kind == "own" and o.candidate.gpu.gpu_class == "consumer"
    }


@pytest.mark.parametrize("site", ["datacenter", "server-room", "colocation"])
def test_an_organisations_racked_service_buys_no_gaming_card(cat: Catalog, site: str) -> None:
    """Outside China no consumer card comes as a blower server edition: a bank's, a
    hospital's or a manufacturer's service in a server room runs on pro or datacenter cards."""
    plan = plan_of(cat, {**BANK_DATA_CENTRE, "site": site})
    assert plan.options
    assert not _bought_consumer(plan)
    assert "consumer-card-not-racked" in {key for key, _ in plan.rules}


def test_a_service_in_an_office_may_run_on_a_gaming_card(cat: Catalog) -> None:
    """The rule is the rack's: the same service in an office tower keeps consumer cards."""
    plan = plan_of(cat, {**BANK_DATA_CENTRE, "site": "office", "data_may_leave": False})
    assert _bought_consumer(plan)


def test_a_chinese_server_room_takes_only_cards_sold_as_blower_editions(cat: Catalog) -> None:
    """In China rebuilt blower GeForce cards are sold for racks (catalog server_edition_in):
    those stay, with the refit's warranty said; a Radeon RX, sold with no such edition, goes."""
    doc = {**BANK_DATA_CENTRE, "region": "cn", "currency": "CNY", "site": "server-room",
           "budget": {"amount": 600000, "currency": "CNY", "per": "total"}}  # fmt: skip
    plan = plan_of(cat, doc)
    consumer = _bought_consumer(plan)
    assert consumer, "blower editions sold in China stay"
    assert all("cn" in cat.gpu(g).server_edition_in for g in consumer)
    refits = [
        o for o in plan.options
        if o.candidate.kind == "own" and o.candidate.gpu.gpu_class == "consumer"
    ]  # fmt: skip
    assert all("risk.server_edition_refit" in {k for k, _ in o.risks} for o in refits)


SAO_PAULO_SERVICE: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "gemma-3-27b", "concurrency": 20,
                 "prompt_tokens": 1500, "gen_tokens": 250,
                 "target_tokens_per_s_per_request": 20},
    "months": 24, "hours_per_day": 24, "region": "brazil", "data_may_leave": False,
    "entity": "company", "site": "colocation", "currency": "USD",
}  # fmt: skip
"""w56-02: a fintech's assistant whose data stays in Brazil, on machines colocated there."""


def _own_capital(plan: Any) -> dict[str, float]:
    return {
        o.candidate.label: o.cost.items.get("cards", 0.0) + o.cost.items.get("host", 0.0)
        for o in plan.options + plan.infeasible
        if o.candidate.kind == "own" and o.candidate.system is None
    }


def test_hardware_bought_in_brazil_costs_its_import_price(cat: Catalog) -> None:
    """The catalog prices no card in Brazil: its world price times the country's index
    (duties and taxes), and the plan says so; the same machine bought in the US does not."""
    factor = next(r for r in cat.extra("region") if r.id == "brazil").hardware_price_index
    assert factor and factor > 1.3
    brazil = plan_of(cat, SAO_PAULO_SERVICE)
    us = plan_of(cat, {**SAO_PAULO_SERVICE, "region": "us"})
    there, here = _own_capital(brazil), _own_capital(us)
    shared = sorted(set(there) & set(here))
    assert shared
    for label in shared:
        assert there[label] == pytest.approx(here[label] * factor, rel=0.02), label
    assert "plan.note_hardware_index" in {k for k, _ in brazil.assumptions}
    assert "plan.note_hardware_index" not in {k for k, _ in us.assumptions}


@pytest.mark.parametrize(
    ("name", "region_id"),
    [("São Paulo", "brazil"), ("Zurich", "switzerland"), ("Toronto", "canada"), ("巴西", "brazil")],
)
def test_countries_users_name_are_regions(cat: Catalog, name: str, region_id: str) -> None:
    from gpuwise.advise.regions import find_region

    region = find_region(cat, name)
    assert region is not None and region.id == region_id


def test_an_assumed_running_batch_shrinks_to_what_a_card_holds(cat: Catalog) -> None:
    """vLLM runs as many prompts as its KV cache holds: a 24 GB card runs a 8B VLM batch on
    its own at a smaller running batch, not split over cards to hold 256 (w56-04)."""
    plan = plan_of(cat, ALIBABA_BATCH)
    single = [
        o for o in plan.options + plan.infeasible
        if o.candidate.gpu.id == "a10" and o.sized.count // o.sized.replicas == 1
    ]  # fmt: skip
    assert single


def test_a_vision_model_without_image_tokens_says_images_are_not_counted(cat: Catalog) -> None:
    notes = {k for k, _ in plan_of(cat, ALIBABA_BATCH).assumptions}
    assert "plan.note_images_not_counted" in notes
    images = {**ALIBABA_BATCH["workload"], "image_tokens": 1000}
    notes = {k for k, _ in plan_of(cat, {**ALIBABA_BATCH, "workload": images}).assumptions}
    assert "plan.note_images_not_counted" not in notes
