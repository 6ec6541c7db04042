"""An organisation that names the region its data stays in is not answered with a peer-to-peer
marketplace host (blind w9-06: a German hospital's health data on a Vast.ai host in Germany,
which passes a country filter with no contract or certification behind it). The host ranks
after data-centre rentals and says why; a person is not affected, and a company that names no
region is told the risk but not moved."""

from __future__ import annotations

import datetime as dt
from typing import Any

from gpuwise.advise.marketplace import on_marketplace
from gpuwise.advise.plan import Plan, make_plan
from gpuwise.advise.ranking import MARKETPLACE_TIER, rank_key
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog

CAT = load_catalog()


def _plan(entity: str, region: str) -> Plan:
    scenario: dict[str, Any] = {
        "name": "team-assistant-14b",
        "workload": {"kind": "serve", "model": "qwen2.5:14b", "concurrency": 8, "context": 8192},
        "months": 6,
        "hours_per_day": 10,
        "region": region,
        "entity": entity,
        "frameworks": ["vllm"],
        "currency": "EUR",
    }
    return make_plan(CAT, parse_scenario(scenario, "t"), dt.date(2026, 12, 6))


def _risk_ids(plan: Plan) -> set[str]:
    return {k for o in plan.options for k, _ in o.risks}


def test_a_company_keeping_data_in_the_eu_gets_data_centre_rentals_before_marketplace_hosts() -> (
    None
):
    plan = _plan("company", "eu")
    rentals = [o for o in plan.options if o.candidate.kind == "rent"]
    # compare within the earlier tiers (known prices and speed, full support): ranking.rank_key
    key = rank_key(plan.scenario, 0.0)
    clean = [o for o in rentals if key(o)[:MARKETPLACE_TIER] == (False,) * MARKETPLACE_TIER]
    hosts = [i for i, o in enumerate(clean) if on_marketplace(o)]
    centres = [i for i, o in enumerate(clean) if not on_marketplace(o)]
    assert hosts and centres
    assert max(centres) < min(hosts)
    assert all(any(k == "risk.marketplace_data" for k, _ in clean[i].risks) for i in hosts)
    if plan.answers.cloud is not None:
        assert plan.answers.cloud.provider != "vast"


def test_a_person_or_a_company_with_no_region_is_not_moved() -> None:
    assert "risk.marketplace_data" not in _risk_ids(_plan("individual", "eu"))
    # a company's data on a stranger's machine is said wherever it is (blind w23-05), but
    # without a region to keep it in, the host is not ranked down for it
    plan = _plan("company", "any")
    hosts = [o for o in plan.options if on_marketplace(o)]
    assert hosts
    key = rank_key(plan.scenario, 0.0)
    for o in hosts:
        assert any(k == "risk.marketplace_data" for k, _ in o.risks)
        assert key(o)[MARKETPLACE_TIER] is False  # the marketplace tier (ranking.rank_key)
