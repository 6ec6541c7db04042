"""Only what can be bought, only hardware that can train: regression tests for the plans that
bought 2 × MI300X, 1 × H200 and 4 × H20 as single cards and planned a LoRA on an Atlas 300I Duo."""

from __future__ import annotations

import datetime as dt
from typing import Any

from gpuwise.advise.candidates import Candidate, system_uses
from gpuwise.advise.plan import Plan, make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.catalog.systems import sold_as_system
from tests.advise.invariants import check_plan

TODAY = dt.date(2026, 12, 2)


def plan_for(data: dict[str, Any]) -> Plan:
    cat = load_catalog()
    plan = make_plan(cat, parse_scenario(data, "test"), TODAY)
    check_plan(cat, plan)
    return plan


def _owned_new(plan: Plan) -> list[Candidate]:
    every = (*plan.options, *plan.unchecked, *plan.infeasible)
    return [
        o.candidate for o in every if o.candidate.kind == "own" and not o.candidate.already_owned
    ]


def test_lora_is_never_planned_on_an_atlas_300i_duo() -> None:
    plan = plan_for(
        {
            "workload": {"kind": "train", "model": "qwen2.5:7b", "mode": "lora",
                         "dataset_tokens": 2e7},
            "region": "cn",
            "domestic_only": True,
            "data_may_leave": False,
        }
    )  # fmt: skip
    every = (*plan.options, *plan.unchecked, *plan.infeasible)
    assert not [o for o in every if o.candidate.gpu.id == "atlas-300i-duo"]
    assert "atlas-300i-duo" in plan.dropped_examples["cannot-train"]
    assert plan.options and plan.options[0].candidate.system is not None
    assert plan.options[0].candidate.system.id == "atlas-800t-a2"


def test_atlas_300i_duo_still_serves() -> None:
    """Inference-only parts stay in inference plans."""
    plan = plan_for(
        {
            "workload": {"kind": "serve", "model": "qwen2.5:7b", "concurrency": 4},
            "region": "cn",
            "domestic_only": True,
            "data_may_leave": False,
        }
    )
    assert any(o.candidate.gpu.id == "atlas-300i-duo" for o in plan.options)


def test_two_mi300x_are_never_bought_singly() -> None:
    """A 2-GPU job on MI300X buys the 8-GPU platform and says 6 sit idle."""
    plan = plan_for(
        {
            "workload": {"kind": "serve", "model": "llama3.1:70b", "concurrency": 8},
            "region": "global",
            "currency": "USD",
            "data_may_leave": False,
            "max_gpus": 2,
        }
    )
    mi300x = [c for c in _owned_new(plan) if c.gpu.id == "mi300x"]
    assert mi300x, "no MI300X option considered"
    for c in mi300x:
        assert c.system is not None and c.system.id == "mi300x-8gpu-server"
        assert c.idle_devices == 8 - c.count
    idle = [
        p
        for o in (*plan.options, *plan.unchecked, *plan.infeasible)
        for k, p in o.risks
        if k == "risk.idle_devices" and o.candidate.gpu.id == "mi300x"
    ]
    assert idle and {p["idle"] for p in idle} <= {6, 7}


def test_h20_is_bought_as_the_8_gpu_server_in_china() -> None:
    plan = plan_for(
        {
            "workload": {"kind": "serve", "model": "qwen2.5:72b", "concurrency": 16},
            "region": "cn",
            "data_may_leave": False,
            "max_gpus": 4,
        }
    )
    h20 = [c for c in _owned_new(plan) if c.gpu.id == "h20"]
    assert h20 and all(c.system is not None and c.system.id == "hgx-h20-8gpu" for c in h20)
    for c in _owned_new(plan):
        assert c.system is not None or not sold_as_system(c.gpu), c.label


def test_system_uses_stop_at_one_system_then_scale_by_whole_systems() -> None:
    def uses(per: int, data: dict[str, Any]) -> list[tuple[int, int]]:
        return system_uses(per, parse_scenario(data, "test"), 8)

    train = {"workload": {"kind": "train", "model": "llama3.1:8b", "dataset_tokens": 1e9}}
    assert uses(8, {**train, "max_gpus": 2}) == [(1, 1), (2, 1)]
    assert uses(8, {**train, "max_gpus": 8}) == [(1, 1), (2, 1), (4, 1), (8, 1)]
    assert uses(8, {**train, "max_gpus": 32}) == [
        (1, 1), (2, 1), (4, 1), (8, 1), (16, 2), (24, 3), (32, 4)
    ]  # fmt: skip
    assert uses(4, {**train, "max_gpus": 8}) == [(1, 1), (2, 1), (4, 1)]


def test_json_and_table_name_the_system(cli) -> None:  # type: ignore[no-untyped-def]
    res = cli("plan", "--model", "llama3.1:70b", "--workload", "serve", "--currency", "USD",
              "--json")  # fmt: skip
    assert res.code == 0, res.err
    data = res.json()
    systems = [o for o in data["options"] if o["system"]]
    for o in systems:
        assert o["systems"] >= 1 and o["idle_devices"] >= 0
        assert "system" in o["items"] or "system" in o["unpriced"]
        assert "host" not in o["items"]
