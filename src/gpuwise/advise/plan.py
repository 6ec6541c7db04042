"""`gpuwise plan`: rank every way to run the workload and answer the three questions.

1. candidates (own 1/2/4/8 of each card, every cloud offer × billing mode) the scenario and the
   market allow (region, export rules, rent-only chips, spot only where the job can take it);
2. the engine and the formats it runs on each card, the least-compressed configuration that
   fits (estimate.memory), its speed (estimate.speed) and hence its hours, its cost (cost.*);
3. limits (budget, deadline, throughput, frameworks): options that break one are infeasible,
   options a missing number keeps from being checked are listed apart, never ranked;
4. ranking by total cost with time as the second axis (the Pareto front is kept);
5. the guide's rules that fired, with the numbers behind them, on the plan and on each option.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gpuwise.advise.answers import answers_of
from gpuwise.advise.candidates import Candidate, candidates
from gpuwise.advise.evaluate import Option, best_use_of_each_system, incomplete_capex
from gpuwise.advise.failover import cold_twins, with_cold_standby
from gpuwise.advise.fired import fire_rules
from gpuwise.advise.fired_billing import money
from gpuwise.advise.limits import check_constraints
from gpuwise.advise.margin import (
    band_assumption,
    spot_slack_check,
    sure_owned_first,
)
from gpuwise.advise.notes import plan_notes
from gpuwise.advise.outcome import Plan, break_even_of, hours_per_day_of
from gpuwise.advise.porting import price_porting_work
from gpuwise.advise.public_assets import public_body_resale
from gpuwise.advise.ranking import TIERS, rank_key
from gpuwise.advise.regions import (
    buyer_of,
    find_region,
)
from gpuwise.advise.scenario import Scenario
from gpuwise.advise.search import mark_pareto, priced_options
from gpuwise.advise.sized import weight_bits
from gpuwise.advise.ties import fewer_machines_first, shorter_run_first
from gpuwise.advise.unpriced_items import impute_unpriced_items
from gpuwise.advise.workload import (
    assume_global_batch,
    generation_of,
    plan_defaults,
    plan_value,
    reading_floor,
    with_assumed_concurrency,
    workload_model,
)
from gpuwise.catalog import Catalog
from gpuwise.cost.model import busy_hours_per_month
from gpuwise.cost.power import assumption
from gpuwise.cost.resolve import make_context
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.i18n import get_lang

if TYPE_CHECKING:
    from gpuwise.advise.fixes import Replan


def _classify(
    s: Scenario,
    options: list[Option],
    budget: float | None,
    floor: float | None = None,
    margin: float = 0.0,
    spot_slack: float | None = None,
) -> tuple[list[Option], list[Option], list[Option]]:
    """(ranked, unchecked, infeasible): passing, not checkable, breaking a limit (a spot run
    whose deadline lacks `spot_slack` times its hours among them)."""
    for o in options:
        check_constraints(s, o, budget, floor, margin)
        if spot_slack and o.candidate.billing == "spot" and o.time_hours:
            days, machines = s.deadline_days or 0.0, o.candidate.nodes
            blocker = spot_slack_check(o.sized, o.time_hours, days, spot_slack, machines)
            o.blockers += [blocker] if blocker else []
    key = rank_key(s, margin)
    ranked = sorted((o for o in options if o.feasible and o.checked), key=key)
    unchecked = sorted((o for o in options if o.feasible and not o.checked), key=key)
    infeasible = sorted((o for o in options if not o.feasible), key=lambda o: o.cost.total)
    return ranked, unchecked, infeasible


def _replanner(cat: Catalog, today: dt.date, cny_per_usd: float | None) -> Replan:
    """The planner run again with a change (advise/fixes.py, imported only when needed)."""
    from gpuwise.advise.fixes import Replan

    return Replan(cat, today, cny_per_usd, make_plan)


def _readings_of_the_scenario(
    s: Scenario, assumed_buyer: bool, assumed_concurrency: int | None
) -> list[tuple[str, dict[str, Any]]]:
    """The ⓘ lines that say how the scenario was read where it left something open: the
    buyer's market, one run, a week of fewer days, a domestic preference, requests in flight."""
    out: list[tuple[str, dict[str, Any]]] = []
    if assumed_buyer:
        out.append(("plan.assume_buyer_cn", {}))
    if s.one_run_assumed():
        out.append(("plan.note_one_run", {}))
    stated = s.budget_stated()
    if stated and s.budget:
        amount, per, times = stated
        key = "plan.note_budget_per_run" if per == "run" else "plan.note_budget_per_year"
        cur = s.budget.currency
        budget = {"amount": money(amount, cur), "total": money(s.budget.amount, cur)}
        out.append((key, budget | {"times": times}))
    if s.days_per_week < 7 and not s.workload.one_off():
        busy = busy_hours_per_month(s.hours_per_day, s.days_per_week)
        week = {"hours": s.hours_per_day, "days": s.days_per_week, "busy": busy}
        out.append(("plan.note_days_per_week", week))
    if s.domestic_preference_pct:
        out.append(("plan.note_domestic_preference", {"pct": s.domestic_preference_pct}))
    if assumed_concurrency and s.workload.batch_requests():
        batch = {"n": assumed_concurrency, "samples": s.workload.batch_requests()}
        out.append(("plan.note_batch_concurrency_assumed", batch))
    elif assumed_concurrency:
        params = {"n": assumed_concurrency, "target": s.workload.target_tokens_per_s}
        out.append(("plan.note_concurrency_assumed", params))
    return out


def _rank(
    cat: Catalog,
    s: Scenario,
    options: list[Option],
    budget: float | None,
    floor: float | None,
    margin: float,
    owned_replan: Callable[[], Replan] | None,
) -> tuple[list[Option], list[Option], list[Option], list[Option], Callable[[Option], Any]]:
    """(ranked, unchecked, infeasible, set aside, tier): the options held to the limits and
    ranked; a cold standby where no hot spare holds; owned machines kept serving beside added
    ones (`owned_replan`); each system used once, as its owner would; a run's cost tie to the
    sooner end; rentals set aside for local use where an owned card runs it."""
    slack = plan_value(cat, "spot_deadline_slack") if s.spot_needs_slack() else None
    twins = cold_twins(s, options)  # copied before the limits are checked
    ranked, unchecked, infeasible = _classify(s, options, budget, floor, margin, slack)
    passing = lambda os: _classify(s, os, budget, floor, margin, slack)[0]  # noqa: E731
    rank = rank_key(s, margin)
    ranked = with_cold_standby(ranked, twins, passing, rank)
    mc = MemoryConstants.from_catalog(cat)
    bits: Callable[[str], float] = lambda q: weight_bits(mc, q)  # noqa: E731
    ranked = sure_owned_first(ranked, lambda o: rank(o)[:TIERS], bits)
    if owned_replan is not None:  # too slow alone, or sure of the target only centrally
        from gpuwise.advise.owned_beside import with_owned_beside

        beside = with_owned_beside(s, ranked, infeasible, budget, owned_replan(), rank)
        ranked, infeasible = beside
    ranked = best_use_of_each_system(ranked, bits)
    unchecked = best_use_of_each_system(unchecked, bits)
    tier = lambda o: rank(o)[:TIERS]  # noqa: E731
    if s.workload.one_off():  # a cost tie between runs goes to the sooner end (advise/ties.py)
        ranked = shorter_run_first(ranked, margin, tier)
    else:  # a service's to the fewer machines
        ranked = fewer_machines_first(ranked, margin, tier, bits)
    set_aside: list[Option] = []
    if s.workload.kind == "local" and any(o.candidate.kind == "own" for o in ranked):
        # local chat runs on your own machine; the guide rents only when no card fits
        set_aside = [o for o in ranked if o.candidate.kind == "rent"]
        ranked = [o for o in ranked if o.candidate.kind == "own"]
    mark_pareto(ranked)
    return ranked, unchecked, infeasible, set_aside, tier


PLANS_KEPT = 32
"""Plans kept per catalog (make_plan): a web page or an MCP client asks the same scenario
again, and a plan is a pure function of its inputs."""


def make_plan(
    cat: Catalog,
    s: Scenario,
    today: dt.date,
    cny_per_usd: float | None = None,
    fixes: bool = True,
    only_owned: bool = False,
) -> Plan:
    """Rank every option for the scenario (pure: the catalog and today come in). With no
    option ranked, `fixes` plans again with each change that could help and keeps those that
    do (advise/fixes.py). Owned hardware too slow for the load alone is kept serving its
    share beside added hardware (advise/owned_beside.py); `only_owned` plans the owned
    hardware alone (that share's search). Remembered per catalog and language (the last
    PLANS_KEPT; a few notes word themselves as the plan is made): a plan is read, never
    changed, by what renders it."""
    memo: dict[tuple[object, ...], Plan] = cat.derived("plans", dict)
    key = (*scenario_key(s), today, cny_per_usd, fixes, only_owned, get_lang())
    found = memo.get(key)  # one dict operation at a time: safe on a web server's threads
    if found is not None:
        return found
    plan = _make_plan(cat, s, today, cny_per_usd, fixes, only_owned)
    memo[key] = plan
    while len(memo) > PLANS_KEPT:  # the oldest out first
        try:
            memo.pop(next(iter(memo)), None)
        except (RuntimeError, StopIteration):  # another thread changed it meanwhile
            break
    return plan


def scenario_key(s: Scenario) -> tuple[str, str]:
    """A scenario as a memo key: its values and which of them the user set (a plan reads a
    default differently from the same value written out: max_gpus left at 8 lets a note quote
    16 devices, max_gpus: 8 does not)."""
    return (s.model_dump_json(), s.model_dump_json(exclude_unset=True))


def with_provider_ids(cat: Catalog, s: Scenario) -> Scenario:
    """The scenario with its `providers:` read as catalog ids (a name, an alias or 阿里云 as
    the user wrote it); an unknown one is one clear error naming the nearest."""
    if not s.providers:
        return s
    from gpuwise.catalog.providers import find_id

    ids = list(dict.fromkeys(find_id(cat.providers, name) for name in s.providers))
    return s.model_copy(update={"providers": ids})


def _make_plan(
    cat: Catalog,
    s: Scenario,
    today: dt.date,
    cny_per_usd: float | None,
    fixes: bool,
    only_owned: bool,
) -> Plan:
    """make_plan's work, once per scenario."""
    s, assumed_concurrency = with_assumed_concurrency(cat, generation_of(cat, s))
    s = with_provider_ids(cat, s)
    ctx = make_context(cat, s.currency, today, cny_per_usd)
    region = find_region(cat, s.region)
    buyer, assumed = buyer_of(region, ctx.currency)
    s, public_resale = public_body_resale(cat, s, buyer)  # proceeds go to the treasury
    assume_global_batch(cat, s)  # a recipe's batch where a full run sets none
    cs = candidates(cat, s, region, buyer)
    if only_owned:
        cs.items = [c for c in cs.items if c.already_owned]
    found = priced_options(cat, s, ctx, cs, buyer, region)
    porting = price_porting_work(cat, s, ctx, found.options, s.region)
    imputed = impute_unpriced_items(found.options)
    budget = ctx.money(s.budget.amount, s.budget.currency) if s.budget else None
    floor = reading_floor(cat, s)
    margin = assumption(cat, "price_uncertainty_fraction").value
    owned_replan = None
    if s.owns and not only_owned:  # owned machines may keep serving beside added ones
        owned_replan = lambda: _replanner(cat, today, cny_per_usd)  # noqa: E731
    r = _rank(cat, s, found.options, budget, floor, margin, owned_replan)
    ranked, unchecked, infeasible, set_aside, tier = r
    unfit = sorted(
        ((g, mem) for g, mem in found.tried.items() if g not in found.fitted),
        key=lambda kv: -kv[1],
    )
    plan = Plan(
        s,
        ranked,
        infeasible,
        answers_of(
            ranked,
            margin,
            s.months,
            tier,
            s.workload.runs_per_month if s.workload.one_off() else None,
            s.deadline_days,
            s.days_per_week,
        ),
        dropped=cs.dropped,
        dropped_examples=cs.examples,
        unfit=unfit,
        refused=found.refused,
        refused_why=found.refused_why,
        set_aside=set_aside,
        unchecked=unchecked,
        currency=ctx.currency,
        owned_unfit=found.owned_unfit,
        small_rentals=found.small_rentals,
    )
    plan.assumptions += _readings_of_the_scenario(s, assumed, assumed_concurrency)
    plan.assumptions += plan_notes(cat, plan, ctx, cs)
    plan.assumptions += band_assumption(s, floor, ranked) + public_resale
    if porting is not None and any("porting_cost" in o.cost.details for o in ranked[:10]):
        plan.assumptions.append(("plan.note_porting_priced", porting))
    if imputed is not None and any("unpriced_imputed" in o.cost.details for o in ranked[:10]):
        plan.assumptions.append(("plan.note_unpriced_imputed", imputed))

    plan.rules = fire_rules(cat, plan, ctx)
    from gpuwise.advise.readings import other_readings

    replan_of = lambda: _replanner(cat, today, cny_per_usd)  # noqa: E731
    plan.assumptions += other_readings(plan, cat, replan_of, margin, fixes and not only_owned)
    if not ranked and fixes:  # fixes.py is imported only when there is something to fix
        from gpuwise.advise.fixes import Replan, suggest_fixes

        plan.suggestions = suggest_fixes(cat, s, plan, Replan(cat, today, cny_per_usd, make_plan))
    return plan


__all__ = [
    "Candidate",
    "Plan",
    "break_even_of",
    "hours_per_day_of",
    "incomplete_capex",
    "make_plan",
    "plan_defaults",
    "workload_model",
]
