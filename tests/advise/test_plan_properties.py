"""Random scenarios (hypothesis): every plan keeps the invariants of tests/advise/invariants.py."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuwise.advise.evaluate import incomplete_capex
from gpuwise.advise.fixes import apply_patch
from gpuwise.advise.plan import make_plan
from gpuwise.advise.ranking import TIERS, rank_key
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.cost.power import assumption
from gpuwise.errors import UserError
from tests.advise.invariants import check_fixes, check_plan, check_rendered
from tests.budget import examples

TODAY = dt.date(2026, 12, 2)
MODELS = (
    "qwen2.5:7b",
    "llama3.1:8b",
    "qwen2.5:14b",
    "qwen2.5:32b",
    "llama3.1:70b",
    "Qwen/Qwen2.5-7B-Instruct",
    "deepseek-r1",
    "qwen3",
    "gemma3:27b",
    "mixtral:8x7b",
)
OWNED = ("rtx-3090", "rtx-4090", "rtx-4060", "apple-m4-max", "a100-80gb", "v100-32gb")


@st.composite
def workloads(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(("train", "serve", "local")))
    w: dict[str, Any] = {"kind": kind, "model": draw(st.sampled_from(MODELS))}
    if kind == "train":
        w["mode"] = draw(st.sampled_from(("full", "lora", "qlora")))
        w["dataset_tokens"] = draw(st.sampled_from((1e6, 2e7, 2e8)))
        w["batch"] = draw(st.sampled_from((1, 4, 16)))
        w["seq_len"] = draw(st.sampled_from((512, 2048, 4096)))
    else:
        w["context"] = draw(st.sampled_from((2048, 8192, 32768)))
        w["concurrency"] = draw(st.integers(1, 64))
        if draw(st.booleans()):
            w["target_tokens_per_s"] = draw(st.sampled_from((20.0, 200.0, 2000.0)))
    return w


@st.composite
def scenarios(draw: st.DrawFn) -> dict[str, Any]:
    currency = draw(st.sampled_from(("CNY", "USD", "EUR")))
    s: dict[str, Any] = {
        "workload": draw(workloads()),
        "months": draw(st.sampled_from((1, 6, 24))),
        "hours_per_day": draw(st.sampled_from((1.0, 8.0, 24.0))),
        "region": draw(st.sampled_from(("any", "cn", "global", "eu", "us"))),
        "currency": currency,
        "allow_spot": draw(st.sampled_from((None, True, False))),
    }
    if draw(st.booleans()):
        s["budget"] = {
            "amount": draw(st.sampled_from((500.0, 20000.0, 1e6))),
            "currency": currency,
            "per": draw(st.sampled_from(("month", "total"))),
        }
    if draw(st.integers(0, 4)) == 0:
        s["deadline_days"] = draw(st.sampled_from((1.0, 7.0)))
    if draw(st.integers(0, 5)) == 0:
        s["domestic_only"] = True
    if draw(st.integers(0, 5)) == 0:
        s["data_may_leave"] = False
    if draw(st.booleans()):
        s["owns"] = [{"gpu": draw(st.sampled_from(OWNED)), "count": draw(st.integers(1, 4))}]
    if draw(st.integers(0, 4)) == 0:
        s["max_gpus"] = draw(st.sampled_from((2, 16, 32)))
    s["entity"] = draw(st.sampled_from(("individual", "company")))
    s["site"] = draw(st.sampled_from((None, "home", "office", "server-room", "datacenter")))
    s["owns_host"] = draw(st.booleans())
    s["public_api"] = draw(st.booleans())
    return s


@settings(
    max_examples=examples(10, 100), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(scenarios())
def test_random_scenarios_keep_the_invariants(data: dict[str, Any]) -> None:
    cat = load_catalog()
    try:
        scenario = parse_scenario(data, "fuzz")
    except UserError:
        return  # a combination the scenario schema refuses with one clear line
    plan = make_plan(cat, scenario, TODAY)
    check_plan(cat, plan)
    check_rendered(cat, plan)
    check_fixes(cat, plan, TODAY)


@settings(
    max_examples=examples(12, 60), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(scenarios())
def test_more_budget_never_makes_a_feasible_plan_infeasible(data: dict[str, Any]) -> None:
    cat = load_catalog()
    try:
        scenario = parse_scenario(data, "fuzz")
    except UserError:
        return
    if scenario.budget is None:
        return
    plan = make_plan(cat, scenario, TODAY, fixes=False)
    twice = {**scenario.budget.model_dump(), "amount": scenario.budget.amount * 2}
    doubled = apply_patch(scenario, {"budget": twice})
    richer = make_plan(cat, doubled, TODAY, fixes=False)
    if plan.options:  # (the best may get dearer: local chat sets rentals aside once a card
        assert richer.options  # of one's own fits, the guide's rule, so only feasibility holds)


def _imputes(plan: Any) -> bool:
    return any("unpriced_imputed" in o.cost.details for o in plan.options)


def _without_imputed(o: Any) -> Any:
    """The option as the search priced it: no storage imputed from the plan's other rentals."""
    details = {k: v for k, v in o.cost.details.items() if k != "unpriced_imputed"}
    return replace(o, cost=replace(o.cost, details=details))


@settings(
    max_examples=examples(12, 60), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(scenarios())
def test_more_devices_allowed_never_makes_the_best_option_slower_for_the_same_cost(
    data: dict[str, Any],
) -> None:
    """Allowing more devices adds options: the best one may then be cheaper, or as cheap and
    faster, never dearer or as dear and slower (ranking is by tier, then cost, then time;
    an option at risk of missing a limit by its cost times its shortfall factor)."""
    cat = load_catalog()
    try:
        scenario = parse_scenario({**data, "max_gpus": 8}, "fuzz")
    except UserError:
        return
    plan = make_plan(cat, scenario, TODAY, fixes=False)
    wider = make_plan(cat, apply_patch(scenario, {"max_gpus": 32}), TODAY, fixes=False)
    if not plan.options or incomplete_capex(plan.options[0]):
        return
    assert wider.options
    best, now = plan.options[0], wider.options[0]
    if incomplete_capex(now):
        return
    # ranked by tiers, then cost; an option that meets a limit only at its central estimate by
    # its total times its shortfall factor (advise/margin.py): that ranking cost never grows
    key = rank_key(scenario, assumption(cat, "price_uncertainty_fraction").value)
    tier_now, tier_best = key(now)[:TIERS], key(best)[:TIERS]
    # storage a provider does not price is ranked at the least the plan's other rentals pay
    # for a machine's disk (advise/unpriced_items.py): where only more devices show the first
    # such price, the ranking learnt something the narrower plan did not know, which is no
    # search of fewer devices being beaten; otherwise the costs compare without it
    if _imputes(wider) and not _imputes(plan):
        return
    cost_now, cost_best = (key(_without_imputed(o))[TIERS] for o in (now, best))
    if tier_now != tier_best:
        assert tier_now < tier_best
        return  # a better-known or better-supported option now ranks first
    assert cost_now <= cost_best * (1 + 1e-9) + 1e-6
    if abs(cost_now - cost_best) < 1e-6 and best.time_hours and now.time_hours:
        assert now.time_hours <= best.time_hours + 1e-6
