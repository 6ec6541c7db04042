"""Hardware that comes with an Arm host CPU (Grace superchips, DGX Spark) says so on every
option (advise/host_arch.py): x86-only wheels, images and prebuilt kernels must be rebuilt."""

from __future__ import annotations

import datetime as dt

from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog

SERVE = {
    "workload": {"kind": "serve", "model": "qwen2.5-32b", "engine": "vllm", "concurrency": 16,
                 "prompt_tokens": 2000, "gen_tokens": 400, "target_tokens_per_s": 400},
    "months": 6, "hours_per_day": 24, "region": "any", "entity": "company", "currency": "USD",
}  # fmt: skip


def test_every_option_on_an_arm_host_says_so_and_no_other_does() -> None:
    cat = load_catalog()
    plan = make_plan(cat, parse_scenario(SERVE, "t"), dt.date(2026, 12, 7))
    seen = [*plan.options, *plan.infeasible]
    arm = [o for o in seen if o.candidate.gpu.host_cpu == "aarch64"]
    assert arm, "the catalog rents GH200s"
    for o in seen:
        flagged = any(k == "risk.arm_host" for k, _ in o.risks)
        assert flagged == (o.candidate.gpu.host_cpu == "aarch64"), o.candidate.label


def test_the_arm_hosts_are_sourced() -> None:
    cat = load_catalog()
    hosts = {g.id for g in cat.gpus if g.host_cpu == "aarch64"}
    assert {"gh200", "gb300", "dgx-spark"} <= hosts
    for g in cat.gpus:
        if g.host_cpu:
            assert "host_cpu" in g.field_sources, g.id
