"""A public API whose owned machine would sit in an office: the plan quotes buying and housing
it in a colocation rack where that costs clearly less than its answer (advise/colocation_note.py,
blind w16-03: the plan said "rent" beside a cheaper purchase and never named colocation). An
organisation that owns nothing and says no site buys into a colocation rack in the first place
(Scenario.owned_site, blind w22-02): the note is for an office it names."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from gpuwise.advise.fired import money
from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.cost.power import assumption

TODAY = dt.date(2026, 12, 6)
API: dict[str, Any] = {
    "workload": {
        "kind": "serve",
        "model": "qwen2.5-32b",
        "concurrency": 32,
        "prompt_tokens": 1000,
        "gen_tokens": 300,
        "target_tokens_per_s_per_request": 15,
    },
    "months": 48,
    "hours_per_day": 24,
    "region": "us",
    "entity": "company",
    "public_api": True,
    "currency": "USD",
    "site": "office",
}  # fmt: skip  (four years: the rack's rent is paid back clearly, not within the prices' 5%)


@pytest.fixture(scope="module")
def cat() -> Any:
    return load_catalog()


def _notes(plan: Any) -> list[dict[str, Any]]:
    return [p for k, p in plan.assumptions if k == "plan.note_colocation"]


def test_the_note_quotes_the_colocated_plan(cat: Any) -> None:
    plan = make_plan(cat, parse_scenario(API, "t"), TODAY)
    notes = _notes(plan)
    assert len(notes) == 1
    colocated = make_plan(cat, parse_scenario({**API, "site": "colocation"}, "t"), TODAY)
    first = colocated.options[0]
    assert first.candidate.kind == "own" and first.cost.items["colocation"] > 0
    assert notes[0]["total"] == money(first.cost.total, "USD")
    margin = assumption(cat, "price_uncertainty_fraction").value
    assert first.cost.total < plan.options[0].cost.total * (1 - margin)


@pytest.mark.parametrize(
    "change",
    [{"site": "colocation"}, {"site": "server-room"}, {"public_api": False},
     {"entity": "individual"}],
)  # fmt: skip
def test_no_note_where_the_site_is_fit_or_no_public_api(cat: Any, change: dict[str, Any]) -> None:
    plan = make_plan(cat, parse_scenario({**API, **change}, "t"), TODAY)
    assert not _notes(plan)


def test_an_organisation_with_no_site_and_nothing_owned_buys_into_a_rack(cat: Any) -> None:
    unsaid = {k: v for k, v in API.items() if k != "site"}
    plan = make_plan(cat, parse_scenario(unsaid, "t"), TODAY)
    assert not _notes(plan)
    bought = [o for o in (*plan.options, *plan.infeasible) if o.candidate.kind == "own"]
    assert bought
    for o in bought:  # rented by the rack's power; an unknown draw leaves it unpriced
        assert o.cost.items.get("colocation", 0) > 0 or "colocation" in o.cost.unpriced
