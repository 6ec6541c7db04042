"""An offer whose sources give no location is not "priced elsewhere": for a named region
outside mainland China it is kept, flagged `region_unrecorded` and ranked after offers known
to be there (advise/regions.unrecorded; blind w42-02: every MI300X rental of a US buyer who
asked for AMD was left out, and a $40,800 purchase answered instead)."""

from __future__ import annotations

import datetime as dt

from gpuwise.advise.plan import make_plan
from gpuwise.advise.ranking import TIERS, rank_key
from gpuwise.advise.regions import find_region, offer_in_region, unrecorded
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog

SERVE = {
    "workload": {"kind": "serve", "model": "llama-3.1-8b", "engine": "vllm", "concurrency": 8},
    "months": 6, "hours_per_day": 24, "region": "us", "entity": "company", "currency": "USD",
}  # fmt: skip


def _located(provider_id: str) -> tuple[object, object]:
    cat = load_catalog()
    p = cat.providers[provider_id]
    offer = next(o for o in cat.offers if o.provider == provider_id and o.regions)
    return p, offer


def test_an_unlocated_offer_is_in_a_named_region_abroad_not_in_china() -> None:
    cat = load_catalog()
    p, offer = _located("lambda")
    bare = offer.model_copy(update={"regions": [], "price_region": None})
    bare_p = p.model_copy(update={"price_region": None})
    assert unrecorded(bare_p, bare)
    us, eu, cn = (find_region(cat, name) for name in ("us", "eu", "cn"))
    assert us is not None and eu is not None and cn is not None
    assert offer_in_region(us, bare_p, bare) and offer_in_region(eu, bare_p, bare)
    assert not offer_in_region(cn, bare_p, bare)
    market = bare_p.model_copy(update={"hosting": "marketplace"})
    assert not offer_in_region(us, market, bare)  # a marketplace median is no place's price


def test_unrecorded_offers_say_so_and_rank_after_located_ones_of_their_tier() -> None:
    cat = load_catalog()
    person = {**SERVE, "entity": "individual"}  # no residency duty: kept, flagged
    plan = make_plan(cat, parse_scenario(person, "t"), dt.date(2026, 12, 7))
    key = rank_key(plan.scenario)
    flagged = [o for o in plan.options if any(k == "risk.region_unrecorded" for k, _ in o.risks)]
    assert flagged, "the catalog has rentals whose sources give no location"
    for o in flagged:
        p, offer = o.candidate.provider, o.candidate.offer
        assert p is not None and offer is not None and unrecorded(p, offer)
        assert key(o)[TIERS - 2]  # the region tier (ranking.rank_key)
    for o in plan.options:
        p, offer = o.candidate.provider, o.candidate.offer
        if o.candidate.kind == "rent" and p is not None and offer is not None:
            assert unrecorded(p, offer) == (o in flagged)


def test_an_organisation_keeping_its_data_in_a_region_gets_no_unlocated_offer() -> None:
    cat = load_catalog()
    person = {**SERVE, "entity": "individual"}
    kept = make_plan(cat, parse_scenario(person, "t"), dt.date(2026, 12, 7))
    company = make_plan(cat, parse_scenario(SERVE, "t"), dt.date(2026, 12, 7))
    assert company.scenario.keeps_data_in_region() and not kept.scenario.keeps_data_in_region()
    for o in company.options + company.infeasible:
        p, offer = o.candidate.provider, o.candidate.offer
        assert p is None or offer is None or not unrecorded(p, offer), o.candidate.label
    assert company.dropped.get("region-unrecorded", 0) > 0  # said as a rule, with the count
    assert any(k == "region-unrecorded" for k, _ in company.rules)
    assert kept.dropped.get("region-unrecorded", 0) == 0
