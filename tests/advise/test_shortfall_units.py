"""A shortfall at the slow end of the band is priced in the whole units the option comes in
(advise/margin.ranking_total, blind w27-01: one 8-GPU node 11% short of a deadline was ranked
as if it cost 1.11x, before a two-node cluster that finished in half the time)."""

from __future__ import annotations

import datetime as dt
import math

import pytest

from gpuwise.advise.margin import purchase_units, ranking_total, shortfall_factor
from gpuwise.advise.plan import make_plan
from gpuwise.advise.ranking import TIERS, rank_key
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog

SHORT = [("risk.deadline_band", {"factor": 1.11})]


@pytest.mark.parametrize(("units", "factor"), [(1, 2.0), (2, 1.5), (8, 9 / 8), (100, 1.11)])
def test_the_factor_rounds_up_to_whole_units(units: int, factor: float) -> None:
    assert ranking_total(100.0, SHORT, units) == pytest.approx(100.0 * factor)


def test_no_shortfall_is_no_rounding() -> None:
    assert ranking_total(100.0, [], 1) == 100.0
    assert ranking_total(100.0, [("risk.deadline_band", {"factor": 0.9})], 3) == 100.0


def test_every_ranked_option_is_ranked_at_its_whole_units() -> None:
    data = {
        "workload": {"kind": "serve", "model": "qwen2.5-32b", "engine": "vllm",
                     "concurrency": 48, "prompt_tokens": 2000, "gen_tokens": 400,
                     "target_tokens_per_s_per_request": 20},
        "months": 12, "hours_per_day": 24, "region": "us", "entity": "company",
        "currency": "USD",
    }  # fmt: skip
    plan = make_plan(load_catalog(), parse_scenario(data, "t"), dt.date(2026, 12, 6))
    key = rank_key(plan.scenario)
    short = [o for o in plan.options if shortfall_factor(o.risks) > 1.0]
    assert short, "some option meets its target only at the central estimate"
    for o in short:
        units = purchase_units(o.candidate)
        rounded = math.ceil(shortfall_factor(o.risks) * units - 1e-9) / units
        porting = o.cost.details.get("porting_cost", 0.0)  # advise/porting.py
        unpriced = o.cost.details.get("unpriced_imputed", 0.0)  # advise/unpriced_items.py
        expected = (o.cost.total + unpriced) * rounded + porting  # none owned
        assert key(o)[TIERS] == pytest.approx(expected)
