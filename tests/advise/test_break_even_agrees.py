"""The break-even month agrees with the totals beside it (outcome.break_even_of scales the
specs' bills to the options' own: blind w22-02 read "owning $95k against $101k for the best
rental; it breaks even in month 25" on a 12-month project, the spare replica of a public API
billed in the totals but not in the break-even)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from gpuwise.advise.outcome import break_even_of
from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog

BASE: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "qwen3-32b", "concurrency": 16,
                 "prompt_tokens": 2000, "gen_tokens": 400},
    "months": 12, "hours_per_day": 24, "region": "us", "entity": "company", "currency": "USD",
}  # fmt: skip


@pytest.mark.parametrize("public_api", [True, False])
def test_owning_cheaper_at_the_horizon_breaks_even_within_it(public_api: bool) -> None:
    plan = make_plan(load_catalog(), parse_scenario({**BASE, "public_api": public_api}, "t"),
                     dt.date(2026, 12, 6))  # fmt: skip
    every = [*plan.options, *plan.infeasible]
    own = [o for o in every if o.own_spec and not o.candidate.already_owned and not o.beside]
    rent = [o for o in every if o.rent_spec and o.usage and not o.beside]
    assert own and rent
    pairs = [(a, b) for a in own[:6] for b in rent[:6]]
    for a, b in pairs:
        be = break_even_of(a, b, plan.scenario.months)
        if a.cost.total < b.cost.total * 0.999:
            assert be.months is not None and be.months <= plan.scenario.months
        elif a.cost.total > b.cost.total * 1.001 and be.months is not None:
            assert be.months > plan.scenario.months - 1
