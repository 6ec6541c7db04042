"""The planner bills one-off jobs as one-off jobs, ranks each offer once in its cheapest billing,
says a near tie is a tie and what decides it, and prices a marketplace host's risk for a 24/7
service (issue 26, items 8 and 9)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpuwise.advise.answers import answers_of
from gpuwise.advise.evaluate import caveated, incomplete_capex
from gpuwise.advise.failover import failover_cost
from gpuwise.advise.margin import at_risk_of_missing
from gpuwise.advise.plan import Plan, make_plan
from gpuwise.advise.report import answer_lines
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.cost.power import assumption
from gpuwise.i18n import t, unsigned_zero
from tests.advise.invariants import NEGATIVE_ZERO

TODAY = dt.date(2026, 12, 2)
ONE_OFF = {
    "workload": {
        "kind": "train",
        "model": "qwen2.5:14b",
        "mode": "lora",
        "dataset_tokens": 300_000_000,
        "seq_len": 4096,
        "batch": 16,
    },
    "months": 1,
    "region": "cn",
}
API = {
    "workload": {
        "kind": "serve",
        "model": "llama3.1:8b",
        "concurrency": 16,
        "context": 8192,
        "prompt_tokens": 1024,
        "gen_tokens": 256,
        "target_tokens_per_s": 300,
    },
    "months": 12,
    "hours_per_day": 24,
    "region": "us",
    "currency": "USD",
}


def plan_for(data: dict[str, Any]) -> Plan:
    return make_plan(load_catalog(), parse_scenario(data, "test"), TODAY)


def rentals(plan: Plan) -> list[Any]:
    return [o for o in plan.options + plan.infeasible if o.candidate.kind == "rent"]


def test_one_off_run_is_billed_by_the_hour_not_a_month() -> None:
    plan = plan_for(ONE_OFF)
    best = plan.options[0]
    # billed by the hour: on-demand, or spot where the job has no deadline (共绩算力's L40S
    # spot since 2026-12-06); never a monthly bill
    assert best.candidate.kind == "rent" and best.candidate.billing in ("on-demand", "spot")
    with_monthly = [o for o in rentals(plan) if "monthly" in o.billing_alternatives]
    assert with_monthly, "no offer sold both by the hour and by the month"
    for o in with_monthly:
        assert o.cost.total < o.billing_alternatives["monthly"]
        assert "billing-chosen" in {r for r, _ in o.rules}, o.candidate.label


def test_each_offer_is_ranked_once_in_its_cheapest_billing() -> None:
    plan = plan_for(ONE_OFF)
    seen: set[tuple[str, str, int]] = set()
    for o in rentals(plan):
        c = o.candidate
        if c.billing == "spot":
            continue
        assert c.provider and c.offer
        key = (c.provider.id, c.offer.instance, c.nodes)
        assert key not in seen, key
        seen.add(key)
        assert all(o.cost.total <= v for v in o.billing_alternatives.values())


def test_run_longer_than_the_project_is_blocked_and_billed_for_its_months() -> None:
    data = {**ONE_OFF, "workload": {**ONE_OFF["workload"], "dataset_tokens": 2e10}}
    plan = plan_for(data)
    blocked = [o for o in plan.infeasible if any(k == "plan.block_hours" for k, _ in o.blockers)]
    assert blocked
    for o in blocked:
        assert o.cost.months > 1 and o.busy_hours_per_month <= 730 + 1e-6
        if o.candidate.billing == "monthly":
            assert o.cost.details["periods"] >= o.cost.months - 1e-9


def test_marketplace_host_priced_with_a_standby_for_a_24x7_service() -> None:
    plan = plan_for(API)
    vast = [o for o in plan.options if o.candidate.provider and o.candidate.provider.id == "vast"]
    assert vast
    for o in vast:
        assert o.cost.items["standby_replica"] == pytest.approx(o.cost.items["compute"])
        assert "risk.marketplace" in {k for k, _ in o.risks}
        assert "marketplace-host" in {r for r, _ in o.rules}


def test_public_api_prefers_a_datacenter_rental() -> None:
    plan = plan_for({**API, "public_api": True})
    plain = [  # the first rank tier: priced, speed known, safe at the band's slow end, supported
        o
        for o in plan.options
        if not incomplete_capex(o)
        and o.sized.speed_known
        and not at_risk_of_missing(o.risks)
        and not caveated(o)
    ]
    kinds = [o.candidate.provider.hosting for o in plain if o.candidate.provider]
    assert "marketplace" in kinds and "datacenter" in kinds
    first_market = kinds.index("marketplace")
    assert all(k == "marketplace" for k in kinds[first_market:]), kinds


def test_batch_work_on_a_marketplace_carries_no_standby() -> None:
    data = {**ONE_OFF, "region": "us", "currency": "USD"}
    plan = plan_for(data)
    assert not any("standby_replica" in o.cost.items for o in plan.options + plan.infeasible)


def test_near_tie_is_either_and_names_what_decides() -> None:
    plan = plan_for(API)
    own = next(o for o in plan.options if o.candidate.kind == "own")
    rent = next(o for o in plan.options if o.candidate.kind == "rent")
    gap = abs(own.cost.total - rent.cost.total) / min(own.cost.total, rent.cost.total)
    answers = answers_of(plan.options, gap + 0.01, plan.scenario.months)
    assert answers.buy_or_rent == "either"
    either = answers.either
    assert either is not None and either.own and either.rent
    assert either.own_above_hours_per_day is not None or either.cheaper_always
    line = answer_lines(load_catalog(), dataclasses.replace(plan, answers=answers))[0]
    assert "Either" in line and ("h/day" in line or "any daily use" in line), line
    strict = answers_of(plan.options, gap / 2, plan.scenario.months)
    assert strict.buy_or_rent != "either" and strict.either is None


@pytest.mark.parametrize(("value", "text"), [(-0.0, "0.0"), (-0.04, "0.0"), (-0.4, "0")])
def test_no_negative_zero_in_messages(value: float, text: str) -> None:
    spec = ".1f" if text == "0.0" else ".0f"
    assert unsigned_zero(format(value, spec)) == text
    line = t("plan.block_hours", hours=value, months=value, project=1)  # {:,.0f} and {:.1f}
    assert not NEGATIVE_ZERO.search(line), line


def test_negative_zero_pattern_spares_dates_and_names() -> None:
    assert NEGATIVE_ZERO.search("breaks even at -0.0 h/day")
    assert NEGATIVE_ZERO.search("¥-0 in all")
    assert not NEGATIVE_ZERO.search("2026-01-08 qwen2.5-0.5b -0.5 h")


def test_rentals_within_the_margin_are_named_as_ties() -> None:
    example = Path(__file__).parents[2] / "examples" / "qlora-7b-china.yaml"
    plan = plan_for(yaml.safe_load(example.read_text("utf-8")))
    cloud = plan.answers.cloud
    assert cloud is not None
    margin = assumption(load_catalog(), "price_uncertainty_fraction").value
    best = next(o for o in plan.options if o.candidate.kind == "rent")
    by_name = {
        (o.candidate.provider.id, o.candidate.offer.instance, o.candidate.billing): o
        for o in plan.options
        if o.candidate.provider and o.candidate.offer
    }
    for tie in cloud.ties:
        o = by_name[(tie.provider, tie.instance, tie.billing)]
        assert o.cost.total <= best.cost.total * (1 + margin) and o is not best
    line = answer_lines(load_catalog(), plan)[2]
    assert all(tie.instance and tie.instance in line for tie in cloud.ties), line


def test_a_public_api_keeps_a_spare_replica_on_every_option() -> None:
    """Blind wave 8 (w8-02): a public API was planned on one rented instance, while only
    marketplace hosts paid for a standby. Every option of a public API now pays for N+1: one
    replica's share of its hardware, whatever the seller (advise/failover.py)."""
    plan = plan_for({**API, "public_api": True})
    for o in plan.options + plan.infeasible:
        spare = o.cost.items.get("failover_replica", o.cost.items.get("standby_replica"))
        if o.candidate.already_owned or (spare is None and failover_cost(plan.scenario, o) <= 0):
            continue
        if {"risk.spare_same_server", "risk.spare_same_server_on_site"} & set(dict(o.risks)):
            assert spare is None and o.sized.replicas >= 2 and o.candidate.system is not None
            continue
        assert spare is not None, o.candidate.label
        if "failover_replica" in o.cost.items:
            assert spare == pytest.approx(failover_cost(plan.scenario, o))
            assert "public-api-failover" in {r for r, _ in o.rules}
    private = plan_for(API)
    assert not any("failover_replica" in o.cost.items for o in private.options)


def test_a_marketplace_host_is_never_as_good_as_a_datacenter_rental_for_a_public_api() -> None:
    plan = plan_for({**API, "public_api": True})
    cloud = plan.answers.cloud
    assert cloud is not None
    hosting = {p.id: p.hosting for p in load_catalog().providers.values()}
    assert all(hosting.get(t.provider or "") != "marketplace" for t in cloud.ties)
