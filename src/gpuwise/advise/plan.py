"""`gpuwise plan`: rank every way to run the workload and answer the three questions.

1. candidates (own 1/2/4/8 of each card, every cloud offer × billing mode) the scenario allows;
2. the least-compressed configuration that fits each (estimate.memory), its speed
   (estimate.speed) and hence its hours, its cost over the project (cost.*);
3. constraints (budget, deadline, throughput, frameworks) and risks;
4. ranking by total cost with time as the second axis (the Pareto front is kept);
5. the guide's rules that fired, with the numbers behind them.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from gpuwise.advise.candidates import candidates
from gpuwise.advise.evaluate import Option, check_constraints, price
from gpuwise.advise.reasons import features_of, option_risks
from gpuwise.advise.scenario import Scenario
from gpuwise.advise.sizing import Sized, size
from gpuwise.catalog import Catalog
from gpuwise.catalog.local import resolve_model
from gpuwise.cost.compare import break_even
from gpuwise.cost.model import DAYS_PER_MONTH
from gpuwise.cost.resolve import Context, make_context
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.speed_constants import SpeedConstants

EITHER_MARGIN = 0.10
"""Buy and rent within 10% of each other: the answer is 'either' (prices move more than that)."""


@dataclass
class Plan:
    """The ranked options, the three answers and the reasons."""

    scenario: Scenario
    options: list[Option]
    infeasible: list[Option]
    answers: dict[str, Any]
    rules: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    dropped: dict[str, int] = field(default_factory=dict)
    suggestions: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    unfit: list[tuple[str, float]] = field(default_factory=list)
    set_aside: list[Option] = field(default_factory=list)
    currency: str = "CNY"


def _sized_options(
    cat: Catalog, s: Scenario, ctx: Context
) -> tuple[list[Option], list[tuple[str, float]], dict[str, int]]:
    """Size and price every candidate; remember the cards the job did not fit on."""
    mc, sc = MemoryConstants.from_catalog(cat), SpeedConstants.from_catalog(cat)
    model = resolve_model(cat, s.workload.model)
    feats = features_of(cat)
    cs = candidates(cat, s)
    cache: dict[tuple[str, int], Sized | None] = {}
    options: list[Option] = []
    unfit: dict[str, float] = {}
    for c in cs.items:
        key = (c.gpu.id, c.count)
        if key not in cache:
            cache[key] = size(s, model, c.gpu, c.count, mc, sc, feats)
        sized = cache[key]
        if sized is None:
            if c.count == 1:
                unfit[c.gpu.id] = c.gpu.memory_gb
            continue
        option = price(cat, ctx, s, c, sized)
        if option is not None:
            option_risks(cat, s, option, feats)
            options.append(option)
    return options, sorted(unfit.items(), key=lambda kv: -kv[1]), cs.dropped


def _rank_key(o: Option) -> tuple[bool, bool, float, float, str]:
    """Cheapest first; after every fully known option come those whose hardware price or
    speed is unknown (a speed that cannot be checked against a target or deadline)."""
    return (
        incomplete_capex(o),
        not o.sized.speed_known,
        o.cost.total,
        o.time_hours or 0.0,
        o.candidate.label,
    )


def incomplete_capex(o: Option) -> bool:
    """The card or host has no price: its total is a floor, not a cost to rank by."""
    return bool({"cards", "host"} & set(o.cost.unpriced))


def _pareto(options: list[Option]) -> None:
    """Mark options no other option beats on both total cost and time."""
    timed = sorted(options, key=lambda o: (o.cost.total, o.time_hours or 0.0))
    best_time = float("inf")
    for o in timed:
        t = o.time_hours if o.time_hours is not None else 0.0
        if t < best_time:
            o.pareto = True
            best_time = t


def _answers(options: list[Option]) -> dict[str, Any]:
    """buy_or_rent, vendor, card, cloud from the cheapest feasible options of each kind."""
    own = next((o for o in options if o.candidate.kind == "own" and not incomplete_capex(o)), None)
    rent = next((o for o in options if o.candidate.kind == "rent"), None)
    best = options[0] if options else None
    if best is None:
        return {"buy_or_rent": None, "vendor": None, "card": None, "cloud": None}
    if (
        own
        and rent
        and abs(own.cost.total - rent.cost.total)
        <= EITHER_MARGIN * min(own.cost.total, rent.cost.total)
    ):
        verdict = "either"
    else:
        verdict = "buy" if best.candidate.kind == "own" else "rent"
    cloud = None
    if verdict != "buy" and rent and rent.candidate.provider:
        cloud = {
            "provider": rent.candidate.provider.id,
            "instance": rent.candidate.offer.instance if rent.candidate.offer else None,
            "billing": rent.candidate.billing,
        }
    return {
        "buy_or_rent": verdict,
        "vendor": best.candidate.gpu.vendor,
        "card": best.candidate.gpu.id,
        "count": best.candidate.count,
        "cloud": cloud,
    }


def make_plan(cat: Catalog, s: Scenario, today: dt.date, cny_per_usd: float | None = None) -> Plan:
    """Rank every option for the scenario (pure: the catalog and today come in)."""
    ctx = make_context(cat, s.currency, today, cny_per_usd)
    options, unfit, dropped = _sized_options(cat, s, ctx)
    budget = ctx.money(s.budget.amount, s.budget.currency) if s.budget else None
    for o in options:
        check_constraints(s, o, budget)
    feasible = sorted((o for o in options if o.feasible), key=_rank_key)
    set_aside: list[Option] = []
    if s.workload.kind == "local" and any(o.candidate.kind == "own" for o in feasible):
        # local chat runs on your own machine; the guide rents only when no card fits
        set_aside = [o for o in feasible if o.candidate.kind == "rent"]
        feasible = [o for o in feasible if o.candidate.kind == "own"]
    infeasible = sorted((o for o in options if not o.feasible), key=lambda o: o.cost.total)
    _pareto(feasible)
    plan = Plan(
        s,
        feasible,
        infeasible,
        _answers(feasible),
        dropped=dropped,
        unfit=unfit,
        set_aside=set_aside,
        currency=ctx.currency,
    )
    from gpuwise.advise.fired import fire_rules, suggest_fixes

    plan.rules = fire_rules(cat, plan, ctx)
    if not feasible:
        plan.suggestions = suggest_fixes(cat, s, plan)
    return plan


def hours_per_day_of(o: Option) -> float:
    """An option's busy hours a month as hours per day."""
    return o.busy_hours_per_month / DAYS_PER_MONTH


def break_even_of(own: Option, rent: Option, months: float) -> Any:
    """Break-even between an owning and a renting option at the owning option's use."""
    assert own.own_spec and rent.rent_spec and rent.usage
    return break_even(own.own_spec, rent.rent_spec, hours_per_day_of(own), months, rent.usage)
