"""Hardware the user owns is used as it is: several owned servers are joined over the network
the user states (blind w46-02: two owned 8 x H100 servers were offered only as one, and a tight
deadline rented the second), and an owned card that holds a fine-tune only with fused kernels
(Unsloth, Liger) is offered that way (blind w46-04: an owned RTX 4080 was to be sold)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from gpuwise.advise.plan import Plan, make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from tests.advise.invariants import check_plan

CAT = load_catalog()
TODAY = dt.date(2026, 12, 7)
PRETRAIN: dict[str, Any] = {
    "workload": {"kind": "train", "model": "llama-3.2-1b", "mode": "full",
                 "dataset_tokens": "50B", "seq_len": 4096, "batch": 256},
    "owns": [{"gpu": "h100-sxm", "count": 16, "network_gbps_per_gpu": 400}],
    "owns_host": True, "max_gpus": 32, "deadline_days": 1, "months": 1, "region": "germany",
    "currency": "EUR", "entity": "institution", "site": "datacenter",
}  # fmt: skip
QLORA: dict[str, Any] = {
    "workload": {"kind": "train", "model": "qwen3-14b", "mode": "qlora",
                 "dataset_tokens": "200M", "seq_len": 2048},
    "deadline_days": 10, "region": "us", "currency": "USD", "owns": ["rtx-4080"],
    "host_ram_gb": 64,
}  # fmt: skip


def _plan(data: dict[str, Any]) -> Plan:
    plan = make_plan(CAT, parse_scenario(data, "t"), TODAY)
    check_plan(CAT, plan)
    return plan


def test_two_owned_servers_are_joined_over_the_stated_network() -> None:
    plan = _plan(PRETRAIN)
    first = plan.options[0]
    assert first.candidate.already_owned and first.candidate.nodes == 2
    assert first.candidate.count == 16 and first.sized.network_gbps_per_node == 400 * 8
    assert "network" not in first.cost.unpriced  # their switch is theirs already
    keys = {k for k, _ in first.risks}
    assert "risk.network_assumed" not in keys and "risk.cluster_network_unpriced" not in keys


def test_owned_servers_without_a_stated_network_are_timed_at_ethernet_and_say_so() -> None:
    data = {**PRETRAIN, "owns": [{"gpu": "h100-sxm", "count": 16}]}
    plan = _plan(data)
    joined = [o for o in (*plan.options, *plan.infeasible) if o.candidate.already_owned
              and o.candidate.nodes == 2]  # fmt: skip
    for o in joined:
        assert any(k == "risk.network_assumed" for k, _ in o.risks)


def test_an_owned_card_that_fits_only_with_fused_kernels_is_offered_with_them() -> None:
    plan = _plan(QLORA)
    owned = next(o for o in plan.options if o.candidate.already_owned)
    assert owned.sized.fused_only
    assert any(k == "risk.fused_only" for k, _ in owned.risks)


def test_unsloth_as_the_engine_runs_qlora_on_nvidia() -> None:
    data = {**QLORA, "workload": {**QLORA["workload"], "engine": "unsloth"}}
    plan = _plan(data)
    assert plan.options and all(o.sized.engine == "unsloth" for o in plan.options)
