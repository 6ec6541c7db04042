"""The plan checks targets and deadlines at the slow end of the estimate's error band
(advise/margin.py): an option that meets a limit only at the central estimate is flagged, not
silently passed; the band is shown in the table and in --json."""

from __future__ import annotations

import dataclasses
import datetime as dt
from types import SimpleNamespace
from typing import Any, cast

import pytest

from gpuwise.advise.evaluate import Option, incomplete_capex
from gpuwise.advise.limits import check_constraints
from gpuwise.advise.margin import (
    hours_band,
    option_ranking_total,
    ranking_total,
    slow_hours,
    slow_tokens_per_s,
    tokens_band,
)
from gpuwise.advise.plan import Plan, make_plan
from gpuwise.advise.ranking import TIERS, rank_key
from gpuwise.advise.report import plan_report
from gpuwise.advise.report_model import PlanOption
from gpuwise.advise.scenario import Scenario, parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.render.plan import _speed_cell

TODAY = dt.date(2026, 12, 2)
CAT = load_catalog()
SERVE = {
    "workload": {
        "kind": "serve",
        "model": "llama3.1:8b",
        "concurrency": 16,
        "context": 8192,
        "prompt_tokens": 1024,
        "gen_tokens": 256,
    },
    "months": 12,
    "hours_per_day": 24,
    "region": "global",
    "currency": "USD",
}
TRAIN = {
    "workload": {
        "kind": "train",
        "model": "llama3.2:1b",
        "mode": "full",
        "dataset_tokens": 2_000_000_000,
        "seq_len": 2048,
        "batch": 8,
    },
    "months": 1,
    "hours_per_day": 24,
    "region": "global",
    "currency": "USD",
}


def _plan(data: dict[str, Any]) -> Plan:
    return make_plan(CAT, parse_scenario(data, "test"), TODAY, fixes=False)


def _with(data: dict[str, Any], **workload: Any) -> Scenario:
    patched = {**data, "workload": {**data["workload"], **workload}}
    return parse_scenario(patched, "test")


def _fresh(o: Option) -> Option:
    return dataclasses.replace(o, blockers=[], unchecked=[], risks=[])


def _band_risks(o: Option) -> list[str]:
    return [k for k, _ in o.risks if k.endswith("_band")]


def _banded(plan: Plan) -> Option:
    """The first ranked option whose speed has an error band wider than nothing."""
    for o in plan.options:
        band = tokens_band(o.sized)
        if band and band[0] < o.sized.tokens_per_s:
            return o
    raise AssertionError("no ranked option carries an error band")


def test_target_met_only_at_the_central_estimate_is_a_stated_risk() -> None:
    o = _banded(_plan(SERVE))
    slow, central = slow_tokens_per_s(o.sized), o.sized.tokens_per_s
    between = _fresh(o)
    check_constraints(_with(SERVE, target_tokens_per_s=(slow + central) / 2), between, None)
    assert between.feasible and _band_risks(between) == ["risk.throughput_band"]
    params = dict(between.risks)["risk.throughput_band"]
    assert params["low"] == slow and params["tps"] == central
    at_slow_end = _fresh(o)
    check_constraints(_with(SERVE, target_tokens_per_s=slow * 0.99), at_slow_end, None)
    assert at_slow_end.feasible and not _band_risks(at_slow_end)


def test_an_option_at_risk_is_ranked_by_its_total_times_its_shortfall() -> None:
    """An option that meets the target only at its central estimate carries its shortfall
    factor (target ÷ p10) and is ranked by its total times it, rounded up to the whole machines
    or cards it comes in: never above a safe option of its tier that costs less than that
    insured total, never below one that costs more."""
    o = _banded(_plan(SERVE))
    target = (slow_tokens_per_s(o.sized) + o.sized.tokens_per_s) / 2
    plan = _plan({**SERVE, "workload": {**SERVE["workload"], "target_tokens_per_s": target}})
    key = rank_key(plan.scenario)
    priced = [x for x in plan.options if not incomplete_capex(x) and x.sized.speed_known]
    risky = [x for x in priced if _band_risks(x)]
    assert risky and len(risky) < len(priced)
    for x in risky:
        params = dict(x.risks)["risk.throughput_band"]
        assert params["factor"] == pytest.approx(target / slow_tokens_per_s(x.sized))
    same = [x for x in priced if key(x)[:TIERS] == key(o)[:TIERS]]
    insured = [option_ranking_total(x) for x in same]  # porting work included (porting.py)
    assert insured == sorted(insured)


W7_03 = {  # blind wave 7, w7-03: EU on-premises RAG, a 32B model for 20 users
    "workload": {
        "kind": "serve",
        "model": "qwen2.5:32b",
        "concurrency": 20,
        "context": 16384,
        "prompt_tokens": 6000,
        "gen_tokens": 500,
        "target_tokens_per_s": 300,
    },
    "months": 36,
    "hours_per_day": 10,
    "region": "eu",
    "entity": "company",
    "data_may_leave": False,
    "site": "server-room",
    "frameworks": ["vllm"],
    "currency": "EUR",
}


def test_w7_03_safe_at_p10_no_longer_buys_twice_the_hardware() -> None:
    """Blind review w7-03: every option safe at the p10 ranked first whatever its price, so a
    32B RAG service for 20 users bought two 8-card servers (€113k) that one 4-card box serves
    (€56k). Now the first option is one machine, and it costs less than the cheapest option
    safe at the slow end even after paying for its shortfall."""
    plan = _plan(W7_03)
    first = plan.options[0]
    safe = [x for x in plan.options if not _band_risks(x) and not incomplete_capex(x)]
    assert first.candidate.nodes == 1
    assert safe and ranking_total(first.cost.total, first.risks) <= safe[0].cost.total
    assert first.sized.quant in {"fp8", "int8", "int4-awq", "int4-gptq", "bf16"}


def test_target_missed_even_at_the_central_estimate_keeps_the_plain_blocker() -> None:
    o = _fresh(_banded(_plan(SERVE)))
    check_constraints(_with(SERVE, target_tokens_per_s=o.sized.tokens_per_s * 2), o, None)
    assert [k for k, _ in o.blockers] == ["plan.block_throughput"]


def test_reading_floor_met_only_at_the_central_estimate_is_a_stated_risk() -> None:
    o = _banded(_plan(SERVE))
    floor = (slow_tokens_per_s(o.sized) + o.sized.tokens_per_s) / 2
    checked = _fresh(o)
    check_constraints(parse_scenario(SERVE, "test"), checked, None, reading_floor=floor)
    assert checked.feasible and _band_risks(checked) == ["risk.reading_speed_band"]


def test_deadline_met_only_at_the_central_estimate_is_a_stated_risk() -> None:
    plan = _plan(TRAIN)
    o = next(o for o in plan.options if o.time_hours and hours_band(o.sized, o.time_hours))
    hours = o.time_hours or 0.0
    long_end = slow_hours(o.sized, hours)
    assert long_end > hours
    days = (hours + long_end) / 2 / 24
    late = _fresh(o)
    check_constraints(parse_scenario({**TRAIN, "deadline_days": days}, "test"), late, None)
    assert late.feasible and _band_risks(late) == ["risk.deadline_band"]
    assert dict(late.risks)["risk.deadline_band"]["high"] == long_end
    in_time = _fresh(o)
    roomy = {**TRAIN, "deadline_days": long_end * 1.01 / 24}
    check_constraints(parse_scenario(roomy, "test"), in_time, None)
    assert in_time.feasible


def test_plan_json_and_assumptions_carry_the_band() -> None:
    plan = _plan(SERVE)
    report = plan_report(CAT, plan, top=5).model_dump(mode="json")
    first = report["options"][0]
    low, high = first["tokens_per_s_band"]
    assert low <= first["tokens_per_s"] <= high
    ids = [a["id"] for a in report["assumptions"]]
    assert "plan.assume_band_speed" in ids  # the reading floor was checked at the slow end
    trained = plan_report(CAT, _plan({**TRAIN, "deadline_days": 30}), top=3).model_dump(mode="json")
    short, long = trained["options"][0]["time_hours_band"]
    assert short <= trained["options"][0]["time_hours"] <= long
    assert "plan.assume_band_hours" in [a["id"] for a in trained["assumptions"]]


def test_no_deadline_means_no_band_assumption_for_training() -> None:
    report = plan_report(CAT, _plan(TRAIN), top=3).model_dump(mode="json")
    assert "plan.assume_band_hours" not in [a["id"] for a in report["assumptions"]]
    assert report["options"][0]["time_hours_band"]  # the table still shows the band


def test_speed_cell_shows_the_band_in_brackets() -> None:
    def option(**fields: object) -> PlanOption:
        base = {"tokens_per_s_band": None, "time_hours": None, "time_hours_band": None}
        return cast(PlanOption, SimpleNamespace(**{**base, **fields}))

    served = option(tokens_per_s=41.2, tokens_per_s_band=(33.0, 47.4))
    assert _speed_cell(served, training=False) == "41 (33–47)"
    trained = option(tokens_per_s=9e3, time_hours=6.64, time_hours_band=(4.57, 9.44))
    assert _speed_cell(trained, training=True) == "6.6 (4.6–9.4)"
    assert _speed_cell(option(tokens_per_s=41.2), training=False) == "41"
    assert _speed_cell(option(tokens_per_s=0.0), training=False) == "—"


def test_a_format_meeting_the_target_centrally_is_not_compressed_further() -> None:
    """Where no format meets the target at the slow end, the least compressed that meets it at
    the central estimate is kept: a further-compressed one buys a smaller priced shortfall with
    the model's quality (blind w16-03: DeepSeek-V3 for a public API at 4 bits on 8 x H200)."""
    data = {
        "workload": {"kind": "serve", "model": "deepseek-v3", "engine": "sglang",
                     "concurrency": 64, "context": 32768, "prompt_tokens": 2000,
                     "gen_tokens": 500, "target_tokens_per_s_per_request": 20},
        "months": 12, "hours_per_day": 24, "region": "us", "public_api": True,
        "entity": "company", "currency": "USD", "ops_capacity": "strong",
    }  # fmt: skip
    plan = make_plan(load_catalog(), parse_scenario(data, "t"), dt.date(2026, 12, 6))
    h200 = [
        o for o in plan.options if o.candidate.gpu.id == "h200" and o.candidate.node_devices == 8
    ]
    assert h200 and all(o.sized.quant == "fp8" for o in h200)
    target = plan.scenario.workload.target_tokens_per_s or 0.0
    assert all(o.sized.tokens_per_s >= target for o in h200)
