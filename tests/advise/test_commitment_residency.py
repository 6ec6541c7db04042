"""Two readings an expert states and quotes: a steady year at a cloud that sells commitments
it does not price (advise/commitment_note.py, blind w25-03), and data that may not leave the
premises beside a region (advise/residency_note.py, blind w25-04)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

import pytest

from gpuwise.advise.commitment_note import commitment_note
from gpuwise.advise.fired import money
from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.catalog.schema_cloud import HOURS_PER_MONTH

TODAY = dt.date(2026, 12, 6)
STEADY: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "qwen2.5-72b", "engine": "vllm", "concurrency": 24,
                 "prompt_tokens": 1500, "gen_tokens": 500,
                 "target_tokens_per_s_per_request": 15},
    "months": 12, "hours_per_day": 24, "region": "eu", "entity": "company", "currency": "USD",
}  # fmt: skip


@pytest.fixture(scope="module")
def cat() -> Any:
    return load_catalog()


def _first_at(plan: Any, provider: str) -> Any:
    """The plan as if its first option were the provider's best on-demand rental."""
    found = [
        o
        for o in (*plan.options, *plan.infeasible)
        if o.candidate.provider is not None
        and o.candidate.provider.id == provider
        and o.candidate.billing == "on-demand"
    ]
    assert found, f"no {provider} rental in the plan"
    return dataclasses.replace(plan, options=[found[0], *plan.options])


def test_a_steady_year_at_nebius_quotes_its_published_discount(cat: Any) -> None:
    plan = _first_at(make_plan(cat, parse_scenario(STEADY, "t"), TODAY), "nebius")
    ((key, params),) = commitment_note(plan, cat)
    assert key == "plan.note_commitment_priced"
    first = plan.options[0]
    assert params["pct"] == pytest.approx(35.0)
    assert params["busy_pct"] == pytest.approx(100 * first.busy_hours_per_month / HOURS_PER_MONTH)
    compute = first.cost.items["compute"]
    every_hour = compute * HOURS_PER_MONTH / first.busy_hours_per_month * 0.65
    assert params["total"] == money(first.cost.total - compute + every_hour, "USD")


def test_a_provider_without_a_published_discount_is_named_without_a_price(cat: Any) -> None:
    plan = _first_at(make_plan(cat, parse_scenario(STEADY, "t"), TODAY), "lambda")
    ((key, params),) = commitment_note(plan, cat)
    assert key == "plan.note_commitment" and "total" not in params
    assert params["pct"] == pytest.approx(35.0)  # the largest any cloud publishes


@pytest.mark.parametrize("change", [{"hours_per_day": 8}, {"months": 6}])
def test_part_time_or_short_loads_get_no_commitment_note(cat: Any, change: dict[str, Any]) -> None:
    plan = _first_at(make_plan(cat, parse_scenario({**STEADY, **change}, "t"), TODAY), "nebius")
    assert commitment_note(plan, cat) == []


RESIDENT: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "qwen2.5-14b", "engine": "vllm", "concurrency": 16,
                 "prompt_tokens": 2000, "gen_tokens": 400,
                 "target_tokens_per_s_per_request": 20},
    "months": 12, "hours_per_day": 10, "region": "eu", "data_may_leave": False,
    "entity": "company", "currency": "EUR",
}  # fmt: skip


def _residency(plan: Any) -> list[dict[str, Any]]:
    return [p for k, p in plan.assumptions if k.startswith("plan.note_residency")]


def test_data_kept_beside_a_region_quotes_the_in_region_cloud_plan(cat: Any) -> None:
    plan = make_plan(cat, parse_scenario(RESIDENT, "t"), TODAY)
    assert all(o.candidate.kind == "own" for o in plan.options)
    (params,) = _residency(plan)
    clouds = make_plan(cat, parse_scenario({**RESIDENT, "data_may_leave": True}, "t"), TODAY)
    first = clouds.options[0]
    assert first.candidate.kind == "rent"
    assert params["total"] == money(first.cost.total, "EUR")
    assert first.cost.total < plan.options[0].cost.total
    assert params["region"] == "eu"


def test_the_reading_is_stated_whatever_the_cloud_costs(cat: Any) -> None:
    """A dearer or equal cloud plan is still the other reading's answer (blind w26-02)."""
    for hours in (4, 24):
        plan = make_plan(cat, parse_scenario({**RESIDENT, "hours_per_day": hours}, "t"), TODAY)
        keys = [k for k, _ in plan.assumptions if k.startswith("plan.note_residency")]
        assert len(keys) == 1


def test_no_region_means_no_second_reading(cat: Any) -> None:
    plan = make_plan(cat, parse_scenario({**RESIDENT, "region": "any"}, "t"), TODAY)
    assert not _residency(plan)


def test_a_region_listed_everywhere_is_said_to_be_unconfirmed(cat: Any) -> None:
    """Lambda's rows list every type in every region: a plan for a named region says so on
    each Lambda rental, and on no rental whose price is quoted for its region."""
    steady = {**STEADY, "hours_per_day": 12}
    plan = make_plan(cat, parse_scenario(steady, "t"), TODAY)
    rentals = [o for o in (*plan.options, *plan.infeasible) if o.candidate.kind == "rent"]
    flagged = {o.candidate.provider.id for o in rentals if _unconfirmed(o)}
    assert flagged == {"lambda"}
    anywhere = make_plan(cat, parse_scenario({**steady, "region": "any"}, "t"), TODAY)
    assert not any(_unconfirmed(o) for o in (*anywhere.options, *anywhere.infeasible))


def _unconfirmed(o: Any) -> bool:
    return any(k == "risk.region_unconfirmed" for k, _ in o.risks)


def test_an_unconfirmed_region_ranks_after_confirmed_rentals(cat: Any) -> None:
    """A region the user names is a requirement: a rental only listed there ranks after those
    whose price is quoted for the region, in its own tier of the ranking key (blind w27-02)."""
    from gpuwise.advise.ranking import TIERS, rank_key

    plan = make_plan(cat, parse_scenario({**STEADY, "hours_per_day": 12}, "t"), TODAY)
    key = rank_key(plan.scenario)
    for o in (*plan.options, *plan.infeasible):
        assert key(o)[TIERS - 2] == _unconfirmed(o)
    rentals = [o for o in plan.options if o.candidate.kind == "rent"]
    if any(not _unconfirmed(o) for o in rentals):
        assert not _unconfirmed(rentals[0])


def test_region_us_takes_offers_priced_for_north_america(cat: Any) -> None:
    """CoreWeave prices its NA regions as one: a US plan ranks them (blind w27-01)."""
    from gpuwise.advise.regions import find_region, offer_in_region

    region = find_region(cat, "us")
    assert region is not None
    provider = cat.providers["coreweave"]
    offers = [o for o in cat.offers if o.provider == "coreweave"]
    assert offers and all(offer_in_region(region, provider, o) for o in offers)


def test_a_provider_mostly_in_the_named_region_is_not_flagged(cat: Any) -> None:
    """Lambda lists 10 of its 17 regions in the US: a US plan takes it as there (w29-02)."""
    plan = make_plan(cat, parse_scenario({**STEADY, "region": "us"}, "t"), TODAY)
    lambdas = [o for o in (*plan.options, *plan.infeasible) if o.candidate.provider is not None
               and o.candidate.provider.id == "lambda"]  # fmt: skip
    assert lambdas and not any(_unconfirmed(o) for o in lambdas)
