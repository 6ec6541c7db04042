"""A service's cost tie goes to the option on fewer machines, and a public API's spare copy is
not scaled by a shortfall (advise/ties.fewer_machines_first, margin.ranking_total; blind
w41-01: seven 4-bit L4 VMs ranked over two L40S VMs within the prices' 5%, and one L40S with
its spare, short by 1.6x at the slow end, ranked as if it needed four)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from gpuwise.advise.labels import option_label
from gpuwise.advise.margin import (
    NEAR_LOSSLESS_BITS,
    at_risk_of_missing,
    option_ranking_total,
    ranking_total,
)
from gpuwise.advise.plan import Plan, make_plan
from gpuwise.advise.ranking import TIERS, rank_key
from gpuwise.advise.report import answer_lines
from gpuwise.advise.scenario import parse_scenario
from gpuwise.advise.sized import weight_bits
from gpuwise.advise.ties import machines_run
from gpuwise.catalog import load_catalog
from gpuwise.cost.power import assumption
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.i18n import using_lang

TODAY = dt.date(2026, 12, 7)
SHORT = [("risk.throughput_band", {"factor": 1.6})]


def _api(model: str, region: str, concurrency: int) -> dict[str, Any]:
    return {
        "workload": {"kind": "serve", "model": model, "engine": "vllm",
                     "concurrency": concurrency, "prompt_tokens": 1000, "gen_tokens": 300,
                     "target_tokens_per_s_per_request": 20},
        "months": 12, "hours_per_day": 24, "region": region, "public_api": True,
        "entity": "company", "currency": "USD",
    }  # fmt: skip


def _plan(data: dict[str, Any]) -> Plan:
    return make_plan(load_catalog(), parse_scenario(data, "t"), TODAY)


def test_the_spare_is_not_scaled_by_the_shortfall() -> None:
    # N+1 = 1+1 short by 1.6x: two serving copies and the one spare, not four machines
    assert ranking_total(200.0, SHORT, 1, spare=100.0) == pytest.approx(300.0)
    # six serving and a spare short by 1.6x: ten serving (ceil 9.6) and the spare
    assert ranking_total(700.0, SHORT, 6, spare=100.0) == pytest.approx(1100.0)
    assert ranking_total(200.0, [], 1, spare=100.0) == 200.0  # nothing short, nothing scaled


@pytest.mark.parametrize(
    ("model", "region", "concurrency"),
    [("qwen2.5-32b", "eu", 64), ("qwen3-8b", "asia-pacific", 64), ("gemma-3-27b", "us", 64)],
)
def test_no_cost_tie_with_the_first_runs_on_fewer_machines(
    model: str, region: str, concurrency: int
) -> None:
    plan = _plan(_api(model, region, concurrency))
    cat = load_catalog()
    mc = MemoryConstants.from_catalog(cat)
    margin = assumption(cat, "price_uncertainty_fraction").value
    key = rank_key(plan.scenario, margin)
    first = plan.options[0]
    bits = lambda o: min(weight_bits(mc, o.sized.quant), NEAR_LOSSLESS_BITS)  # noqa: E731
    limit = option_ranking_total(first) * (1 + margin)
    for o in plan.options[1:]:
        tied = (
            key(o)[:TIERS] == key(first)[:TIERS]
            and option_ranking_total(o) <= limit
            and bits(o) >= bits(first)
            and (at_risk_of_missing(first.risks) or not at_risk_of_missing(o.risks))
        )
        assert not tied or machines_run(o) >= machines_run(first), option_label(o)


def test_the_answer_says_the_machine_count_decided_the_tie() -> None:
    plan = _plan(_api("qwen2.5-32b", "eu", 64))
    x = plan.answers.decided_by_machines
    assert x is not None, "a dearer option on fewer machines leads a cheaper one on more"
    cheaper = next(o for o in plan.options if option_label(o) == x.cheaper)
    first = plan.options[0]
    assert option_ranking_total(cheaper) < option_ranking_total(first)
    assert x.fewer_machines == machines_run(first) < x.cheaper_machines
    for lang, word in (("en", "machines"), ("zh", "台机器")):
        with using_lang(lang):
            text = " ".join(answer_lines(load_catalog(), plan))
        assert word in text and str(x.cheaper_machines) in text


def test_a_run_is_never_settled_by_machines() -> None:
    data = {
        "workload": {"kind": "train", "model": "qwen2.5:1.5b", "mode": "full",
                     "dataset_tokens": 2_000_000_000, "seq_len": 4096, "epochs": 1},
        "months": 1, "region": "us", "entity": "company", "currency": "USD",
    }  # fmt: skip
    assert _plan(data).answers.decided_by_machines is None


def test_the_invariants_tie_margin_is_the_catalogs() -> None:
    from tests.advise.invariants import TIE_MARGIN

    assert assumption(load_catalog(), "price_uncertainty_fraction").value == TIE_MARGIN
