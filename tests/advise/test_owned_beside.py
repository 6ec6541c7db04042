"""Owned machines too slow for a grown service keep serving their share beside added hardware
(advise/owned_beside.py, blind w17-05: an owned 4 × A100 box vanished from the plan once the
load doubled, and every option was costed as if the fleet started from zero)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from gpuwise.advise.evaluate import Option
from gpuwise.advise.margin import at_risk_of_missing, slow_tokens_per_s
from gpuwise.advise.plan import Plan, make_plan
from gpuwise.advise.report import plan_report
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.export.view import view_of
from gpuwise.i18n import using_lang
from tests.advise.invariants import check_fixes, check_plan

TODAY = dt.date(2026, 12, 6)

GROWN: list[dict[str, Any]] = [
    # EU startup: 4 x A100 served 32 users of Llama-3.3-70B, the load doubles
    {
        "workload": {"kind": "serve", "model": "llama-3.3-70b", "concurrency": 64,
                     "prompt_tokens": 1500, "gen_tokens": 400,
                     "target_tokens_per_s_per_request": 20},
        "months": 24, "hours_per_day": 24, "region": "eu", "entity": "company",
        "owns": [{"gpu": "a100-80gb", "count": 4}], "owns_host": True,
        "site": "server-room", "currency": "EUR", "ops_capacity": "strong",
    },
    # CN team: 2 x L40S serving Qwen2.5-32B, 48 users at 15 tokens/s each, a total target
    {
        "workload": {"kind": "serve", "model": "qwen2.5-32b", "concurrency": 48,
                     "prompt_tokens": 2000, "gen_tokens": 300, "target_tokens_per_s": 720},
        "months": 18, "hours_per_day": 24, "region": "cn", "entity": "company",
        "owns": [{"gpu": "l40s", "count": 2}], "owns_host": True, "site": "server-room",
        "currency": "CNY",
    },
]  # fmt: skip


@pytest.fixture(scope="module")
def cat() -> Any:
    return load_catalog()


def _plan(cat: Any, data: dict[str, Any]) -> Plan:
    return make_plan(cat, parse_scenario(data, "test"), TODAY)


def _without_owned(data: dict[str, Any]) -> dict[str, Any]:
    return {**data, "owns": [], "owns_host": False}


@pytest.fixture(scope="module", params=range(len(GROWN)), ids=["eu-a100", "cn-l40s"])
def grown(request: Any, cat: Any) -> tuple[dict[str, Any], Plan]:
    data = GROWN[request.param]
    return data, _plan(cat, data)


def _beside(plan: Plan) -> list[Option]:
    return [o for o in plan.options if o.beside is not None]


def test_the_owned_machines_keep_serving_beside_what_is_added(grown: Any) -> None:
    data, plan = grown
    best = plan.options[0]
    assert best.beside is not None, best.candidate.label
    assert best.beside.candidate.already_owned
    rule = dict(best.rules)["owned-beside"]
    total = data["workload"]["concurrency"]
    assert 0 < rule["requests"] < total and rule["total"] == total
    assert rule["requests"] + rule["rest"] == total


def test_keeping_them_costs_less_than_starting_from_zero(cat: Any, grown: Any) -> None:
    """Owning hardware never makes the plan's answer dearer than owning none."""
    data, plan = grown
    fresh = _plan(cat, _without_owned(data))
    assert plan.options[0].cost.total < fresh.options[0].cost.total


def test_one_bill_holds_both_parts(grown: Any) -> None:
    """The bill is the added hardware's plus the owned share's running cost, item by item."""
    _, plan = grown
    for o in _beside(plan):
        assert o.beside is not None
        owned = o.beside.cost
        assert o.cost.total > owned.total > 0
        for item, amount in owned.items.items():
            assert o.cost.items[item] >= amount - 1e-6 or amount < 0


def test_the_two_together_meet_the_target(grown: Any) -> None:
    """Each part's speed is added; the whole target is met at the central estimate (the slow
    end is a stated risk, as for any option)."""
    _data, plan = grown
    target = plan.scenario.workload.target_tokens_per_s
    assert target
    for o in _beside(plan):
        assert o.beside is not None
        central = o.sized.tokens_per_s + o.beside.sized.tokens_per_s
        assert central >= target
        slow = slow_tokens_per_s(o.sized) + slow_tokens_per_s(o.beside.sized)
        assert (slow >= target) != any(k == "risk.throughput_band" for k, _ in o.risks)


def test_the_owned_share_is_what_it_carries_alone(cat: Any, grown: Any) -> None:
    """The owned machines serve as many requests as they meet the pace for alone: one more
    and the owned option on its own is no longer feasible."""
    data, plan = grown
    best = plan.options[0]
    n = dict(best.rules)["owned-beside"]["requests"]
    w = data["workload"]
    total = w["concurrency"]

    def alone(requests: int) -> bool:
        target = plan.scenario.workload.target_tokens_per_s or 0.0
        load = {**w, "concurrency": requests, "target_tokens_per_s": target * requests / total}
        load.pop("target_tokens_per_s_per_request", None)
        p = make_plan(cat, parse_scenario({**data, "workload": load}, "t"), TODAY, fixes=False)
        return any(o.candidate.already_owned and o.beside is None for o in p.options)

    assert alone(n) and not alone(n + 1)


def test_report_and_words_name_the_kept_machines(cat: Any, grown: Any) -> None:
    _data, plan = grown
    report = plan_report(cat, plan, 3)
    first = report.options[0]
    assert first.kept_beside is not None
    best = plan.options[0]
    assert best.beside is not None
    assert first.tokens_per_s == pytest.approx(
        best.sized.tokens_per_s + best.beside.sized.tokens_per_s, abs=0.2
    )
    for lang in ("en", "zh"):
        with using_lang(lang):
            text = plan_report(cat, plan, 3).answer_text[1]
        assert str(first.kept_beside.requests) in text
        assert best.beside.candidate.gpu.name in text


def test_export_serves_only_the_added_share(cat: Any, grown: Any) -> None:
    _data, plan = grown
    best = plan.options[0]
    view = view_of(cat, plan.scenario, best, 1, plan.currency)
    rest = dict(best.rules)["owned-beside"]["rest"]
    assert view.concurrency == rest


def test_no_composite_while_the_owned_machines_carry_the_load(cat: Any) -> None:
    """At 16 requests the owned box holds the target at the slow end of its band: nothing to
    add. At 24 it holds it only at the central estimate: it still ranks, and the options that
    keep it and add the rest for the slow end are offered beside it (blind w37-04)."""
    data = {**GROWN[0], "workload": {**GROWN[0]["workload"], "concurrency": 16}}
    plan = _plan(cat, data)
    assert plan.options[0].candidate.already_owned
    assert not at_risk_of_missing(plan.options[0].risks)
    assert not _beside(plan)
    grown = {**GROWN[0], "workload": {**GROWN[0]["workload"], "concurrency": 24}}
    at_risk = _plan(cat, grown)
    owned = [o for o in at_risk.options if o.candidate.already_owned]
    assert owned and all(at_risk_of_missing(o.risks) for o in owned)
    kept = _beside(at_risk)
    assert kept
    for o in kept:
        assert o.beside is not None and not at_risk_of_missing(o.beside.risks)


def test_training_is_not_split_over_owned_and_added_machines(cat: Any) -> None:
    data = {
        "workload": {"kind": "train", "model": "qwen2.5-7b", "mode": "lora",
                     "dataset_tokens": 2e8},
        "deadline_days": 0.5, "owns": [{"gpu": "l40s", "count": 1}], "owns_host": True,
        "region": "cn", "entity": "company",
    }  # fmt: skip
    assert not _beside(_plan(cat, data))


def test_the_plan_keeps_every_invariant(cat: Any, grown: Any) -> None:
    _, plan = grown
    assert _beside(plan)
    check_plan(cat, plan)


def test_a_budget_fix_quotes_the_kept_machines_option(cat: Any) -> None:
    """With a budget under the answer, the suggested budget is what keeping the owned machines
    and adding beside them costs, and applying it gives that plan (fixes.check_fixes)."""
    data = {**GROWN[0], "budget": {"amount": 30000, "currency": "EUR", "per": "total"}}
    plan = _plan(cat, data)
    fixes = [p for k, p in plan.suggestions if k == "plan.fix_budget"]
    assert fixes
    unbudgeted = _plan(cat, GROWN[0])
    assert unbudgeted.options[0].beside is not None
    assert fixes[0]["total_value"] == pytest.approx(unbudgeted.options[0].cost.total, abs=0.01)
    check_fixes(cat, plan, TODAY)
