"""Issues 26 and 29 through the planner, on the two blind-review scenarios that found them
(tests/advise/blind_wave6.yaml): a hospital (a company) was priced at eBay listings of used T4s,
and a person running Qwen3-235B locally had no priced Mac Studio. These tests assert the
mechanism (the channel a buyer pays, a price present), not an exact ranking."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpuwise.advise.plan import Plan, make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import Catalog, load_catalog
from gpuwise.cost.channel import card_price

TODAY = dt.date(2026, 12, 2)
BLIND = yaml.safe_load((Path(__file__).parent / "blind_wave6.yaml").read_text("utf-8"))


def _case(case_id: str) -> dict[str, Any]:
    return next(c for c in BLIND if c["id"] == case_id)


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


def _plan(cat: Catalog, case_id: str) -> Plan:
    case = _case(case_id)
    return make_plan(cat, parse_scenario(case["scenario"], case_id), TODAY)


def _card_refs(o: Any) -> list[Any]:
    return [p for p in o.prices if p.label.startswith("card:")]


def test_hospital_is_never_priced_at_a_used_listing(cat: Catalog) -> None:
    """Every card a company is offered is priced at a new price (list, shop or distributor)
    from the catalog, and the T4 sold only second-hand is no longer ranked."""
    plan = _plan(cat, "eu-hospital-8b-lora-gdpr")
    assert plan.scenario.entity == "company"
    owned = [o for o in plan.options if o.candidate.kind == "own" and o.candidate.system is None]
    assert owned
    for o in owned:
        gpu = o.candidate.gpu
        chosen = card_price(gpu, "company", plan.currency)
        assert chosen is not None and chosen.bought_as == "new", gpu.id
        refs = _card_refs(o)
        assert refs and {(r.amount, r.source) for r in refs} == {(chosen.amount, chosen.source)}
    assert all(o.candidate.gpu.id != "t4" for o in plan.options)


def test_hospital_ranks_a_single_professional_card(cat: Catalog) -> None:
    """The expert's answer, one 48-96 GB professional card, is priced and ranked (not left
    'unchecked: no price for the cards')."""
    plan = _plan(cat, "eu-hospital-8b-lora-gdpr")
    pro = {"rtx-pro-6000-blackwell", "rtx-pro-6000-blackwell-max-q", "rtx-6000-ada", "l40s"}
    ranked = [
        o
        for o in plan.options
        if o.candidate.gpu.id in pro and o.candidate.count == 1 and "cards" in o.cost.items
    ]
    assert ranked, [o.candidate.gpu.id for o in plan.options]


def test_local_235b_ranks_a_priced_mac_studio(cat: Catalog) -> None:
    """The 256 GB M3 Ultra Mac Studio (the expert's answer) is priced at Apple's new price and
    ranked for the individual running Qwen3-235B at home."""
    plan = _plan(cat, "local-qwen3-235b-mac-or-strix")
    macs = [o for o in plan.options if o.candidate.gpu.id == "apple-m3-ultra-256gb"]
    assert macs, [o.candidate.gpu.id for o in plan.options]
    mac = macs[0]
    assert "cards" in mac.cost.items and "cards" not in mac.cost.unpriced
    chosen = card_price(mac.candidate.gpu, "individual", plan.currency)
    assert chosen is not None and chosen.bought_as == "new" and chosen.seen_at == "list"
    assert mac.cost.items["cards"] == pytest.approx(chosen.amount)  # USD plan, USD price
