"""Rule hidden-costs names storage, egress, snapshots and public IP, so it counts only those
(blind w10-02: a public API's failover replica was reported as "storage, egress, snapshots and
public IP (100%)")."""

from __future__ import annotations

import datetime as dt

import pytest

from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.cost.rent import HIDDEN_ITEMS

CAT = load_catalog()


def test_hidden_costs_count_storage_traffic_and_addresses_not_replicas() -> None:
    scenario = {
        "name": "public-api-14b",
        "workload": {"kind": "serve", "model": "qwen2.5:14b", "concurrency": 8},
        "months": 6,
        "hours_per_day": 24,
        "region": "us",
        "entity": "company",
        "public_api": True,
        "egress_gb_per_month": 500,
        "frameworks": ["vllm"],
        "currency": "USD",
    }
    plan = make_plan(CAT, parse_scenario(scenario, "t"), dt.date(2026, 12, 6))
    rent = next(o for o in plan.options if o.candidate.kind == "rent")
    assert "failover_replica" in rent.cost.items or "standby_replica" in rent.cost.items
    fired = [p for k, p in plan.rules if k == "hidden-costs"]
    gpu_part = sum(
        rent.cost.items.get(k, 0.0) for k in ("compute", "spot_rework", "session_overhead")
    )
    hidden = sum(rent.cost.items.get(k, 0.0) for k in HIDDEN_ITEMS)
    if hidden > 0:
        assert fired and fired[0]["hidden_pct"] == pytest.approx(hidden / gpu_part)
    else:
        assert not fired
