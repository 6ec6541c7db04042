"""A whole system bought is run the way its owner would: all the devices it needs for the least
compressed format, then the fastest, not the few cards whose idle siblings save a little
power (blind w12-04: a DGX H100 bought for DeepSeek-V3.2 and run on 2 of its 8 GPUs)."""

from __future__ import annotations

import datetime as dt

from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.advise.sized import weight_bits
from gpuwise.catalog import load_catalog
from gpuwise.estimate.constants import MemoryConstants

SCENARIO = {
    "workload": {
        "kind": "serve",
        "model": "deepseek-v3.2",
        "concurrency": 8,
        "prompt_tokens": 3000,
        "gen_tokens": 800,
    },
    "months": 12,
    "hours_per_day": 12,
    "budget": {"amount": 40000, "currency": "USD", "per": "month"},
    "region": "asia-pacific",
    "data_may_leave": False,
    "entity": "company",
    "ops_capacity": "strong",
    "currency": "USD",
}


def test_each_system_is_shown_once_in_its_best_use() -> None:
    cat = load_catalog()
    plan = make_plan(cat, parse_scenario(SCENARIO, "test"), dt.date(2026, 12, 6))
    systems = [o for o in plan.options if o.candidate.system is not None]
    assert systems, "an 8-GPU system holds DeepSeek-V3.2 on premises"
    keys = [(o.candidate.system.id, o.candidate.systems) for o in systems]  # type: ignore[union-attr]
    assert len(keys) == len(set(keys))
    dgx = [o for o in systems if o.candidate.system and o.candidate.system.id == "dgx-h100"]
    assert dgx, [o.candidate.label for o in systems]
    assert dgx[0].candidate.count == 8, dgx[0].candidate.label  # all 8, not 2 at 4 bits
    mc = MemoryConstants.from_catalog(cat)
    assert weight_bits(mc, dgx[0].sized.quant) >= 4
