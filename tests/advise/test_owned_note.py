"""Owned hardware the first option leaves unused is named, with what using it costs, what it
would fetch sold, and, for an internal service in a rented rack, what it costs in the office
(advise/owned_note.py, blind w25-05: eight owned cards in a paid rack, an answer that rented
two more and never named them)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.cost.context import make_context
from gpuwise.cost.resolve import OwnOptions, resolve_own

TODAY = dt.date(2026, 12, 6)
RACKED: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "qwen2.5-14b", "engine": "vllm", "concurrency": 8,
                 "prompt_tokens": 2000, "gen_tokens": 500,
                 "target_tokens_per_s_per_request": 15},
    "months": 18, "hours_per_day": 8, "region": "cn", "entity": "company",
    "site": "colocation", "owns": [{"gpu": "rtx-3090", "count": 4}], "owns_host": True,
    "currency": "CNY",
}  # fmt: skip


@pytest.fixture(scope="module")
def cat() -> Any:
    return load_catalog()


@pytest.fixture(scope="module")
def racked(cat: Any) -> Any:
    return make_plan(cat, parse_scenario(RACKED, "t"), TODAY)


def _notes(plan: Any, prefix: str) -> list[tuple[str, dict[str, Any]]]:
    return [(k, p) for k, p in plan.assumptions if k.startswith(prefix)]


def test_a_rental_answer_names_the_owned_cards_and_their_cost(racked: Any) -> None:
    first = racked.options[0]
    assert not first.candidate.already_owned
    ((key, params),) = _notes(racked, "plan.note_owned_unused")
    owned = next(o for o in racked.options if o.candidate.already_owned)
    assert params["rank"] == racked.options.index(owned) + 1
    assert "4× NVIDIA GeForce RTX 3090" in params["fleet_en"]
    assert owned.cost.total > first.cost.total  # the note says "more"
    assert key == "plan.note_owned_unused"  # it pays rack rent


def test_the_sell_value_counts_every_owned_card(racked: Any) -> None:
    """Four cards owned, two used by the owned option: the note values all four."""
    ((_, params),) = _notes(racked, "plan.note_owned_sell")
    owned = next(o for o in racked.options if o.candidate.already_owned)
    per_card = owned.cost.details["opportunity_value"] / owned.candidate.cards
    assert owned.candidate.cards < 4
    assert params["value"] == f"¥{4 * per_card:,.0f}"


def test_the_office_alternative_is_planned_not_guessed(cat: Any, racked: Any) -> None:
    ((_, params),) = _notes(racked, "plan.note_owned_office")
    office = make_plan(cat, parse_scenario({**RACKED, "site": "office"}, "t"), TODAY)
    assert office.options[0].candidate.already_owned
    assert params["office_total"] == f"¥{office.options[0].cost.total:,.0f}"
    assert office.options[0].cost.total < racked.options[0].cost.total
    assert not _notes(office, "plan.note_owned")  # the owned cards are the answer there


def test_a_public_api_is_never_told_to_move_into_the_office(cat: Any) -> None:
    plan = make_plan(cat, parse_scenario({**RACKED, "public_api": True}, "t"), TODAY)
    assert not _notes(plan, "plan.note_owned_office")


def test_a_used_price_is_aged_to_today_along_the_curve(cat: Any) -> None:
    """The newest used price is the market's word on the card; months after it the card is
    worth less by the resale curve, never more."""
    gpu = cat.gpu("rtx-4090")
    used = max((p for p in gpu.prices if p.kind == "used"), key=lambda p: p.date)
    ctx = make_context(cat, used.currency, TODAY, None)
    spec = resolve_own(cat, ctx, "rtx-4090", 1, OwnOptions(owned=True)).spec
    assert spec.used_value_per_card is not None
    assert 0.5 * used.amount < spec.used_value_per_card <= used.amount
    later = make_context(cat, used.currency, dt.date(2028, 12, 6), None)
    older = resolve_own(cat, later, "rtx-4090", 1, OwnOptions(owned=True)).spec
    assert older.used_value_per_card is not None
    assert older.used_value_per_card < spec.used_value_per_card
