"""A training job that fits the devices only with DeepSpeed's host-memory offload is sized that
way, not called impossible (advise/sizing._size_train; blind w45-02: a lab's 8 owned RTX 3090s
were told to be sold for a full fine-tune of an 8B model that ZeRO-3 with CPU offload runs in
about 19 GiB a card), and the plan says how much system RAM the offload takes (the optimizer's
FP32 states, master weights and, for ZeRO-3, the 16-bit weights: about 16 bytes a parameter)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from gpuwise.advise.plan import Plan, make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from tests.advise.invariants import check_plan

TODAY = dt.date(2026, 12, 6)

LAB: dict[str, Any] = {
    "workload": {"kind": "train", "model": "qwen3-8b", "mode": "full",
                 "dataset_tokens": "2B", "seq_len": 4096, "epochs": 1, "runs_per_month": 1,
                 "batch": 128},
    "months": 1, "deadline_days": 21, "region": "cn", "currency": "CNY",
    "entity": "institution", "site": "office", "owns": [{"gpu": "rtx-3090", "count": 4}],
    "max_gpus": 4, "frameworks": ["pytorch", "deepspeed"],
}  # fmt: skip


@pytest.fixture(scope="module")
def cat() -> Any:
    return load_catalog()


def _plan(cat: Any, data: dict[str, Any]) -> Plan:
    plan = make_plan(cat, parse_scenario({"name": "offload", **data}, "test"), TODAY)
    check_plan(cat, plan)
    return plan


def _owned(plan: Plan) -> Any:
    return next(o for o in plan.options if o.candidate.already_owned)


def test_owned_cards_too_small_in_full_are_sized_with_offload(cat: Any) -> None:
    o = _owned(_plan(cat, LAB))
    assert o.sized.strategy in ("zero2-offload", "zero3-offload")
    assert o.sized.hours_per_run and o.sized.hours_per_run < 21 * 24
    keys = {k: v for k, v in o.risks}
    params = cat.model("qwen3-8b").params_b * 1e9
    gib = keys["risk.offload_ram"]["gib"]
    assert 12 * params / 2**30 < gib < 18 * params / 2**30  # FP32 Adam states + master (+ bf16)


def test_ram_short_of_the_offload_is_said(cat: Any) -> None:
    o = _owned(_plan(cat, {**LAB, "host_ram_gb": 64}))
    short = dict(o.risks)["risk.offload_ram_short"]
    assert short["have"] == 64 and short["gib"] > 64


def test_a_job_that_fits_without_offload_never_takes_it(cat: Any) -> None:
    lora = {**LAB, "workload": {**LAB["workload"], "mode": "lora"}}
    o = _owned(_plan(cat, lora))
    assert not o.sized.strategy.endswith("offload")
    assert not any(k.startswith("risk.offload") for k, _ in o.risks)
