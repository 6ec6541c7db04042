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
from dataclasses import dataclass, field
from typing import Any

from gpuwise.advise.billing import cheapest_billing
from gpuwise.advise.candidates import Candidate, CandidateSet, candidates
from gpuwise.advise.engines import EngineChoice, choose_engine
from gpuwise.advise.evaluate import (
    Option,
    best_use_of_each_system,
    check_constraints,
    incomplete_capex,
    price,
)
from gpuwise.advise.margin import band_assumption
from gpuwise.advise.marketplace import on_marketplace, price_marketplace_risk
from gpuwise.advise.reasons import features_of, option_risks
from gpuwise.advise.regions import buyer_of, find_region
from gpuwise.advise.scenario import Scenario
from gpuwise.advise.sizing import Defaults, ScaleOut, Sized, SizeInputs, size
from gpuwise.catalog import Catalog
from gpuwise.catalog.reading import read_model_name
from gpuwise.catalog.schema import LlmModel
from gpuwise.cost.compare import break_even
from gpuwise.cost.model import DAYS_PER_MONTH
from gpuwise.cost.power import assumption
from gpuwise.cost.resolve import Context, make_context
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.speed_constants import SpeedConstants


@dataclass
class Plan:
    """The ranked options, the three answers and the reasons."""

    scenario: Scenario
    options: list[Option]
    infeasible: list[Option]
    answers: dict[str, Any]
    rules: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    dropped: dict[str, int] = field(default_factory=dict)
    dropped_examples: dict[str, list[str]] = field(default_factory=dict)
    suggestions: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    unfit: list[tuple[str, float]] = field(default_factory=list)
    refused: dict[str, list[str]] = field(default_factory=dict)
    set_aside: list[Option] = field(default_factory=list)
    unchecked: list[Option] = field(default_factory=list)
    assumptions: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    currency: str = "CNY"
    owned_unfit: list[tuple[str, int, float]] = field(default_factory=list)
    """Hardware the user owns that cannot run the job: (gpu, cards, GB per card)."""


@dataclass
class Search:
    """What sizing every candidate found: priced options, cards too small, formats refused."""

    options: list[Option] = field(default_factory=list)
    fitted: set[str] = field(default_factory=set)
    tried: dict[str, float] = field(default_factory=dict)
    refused: dict[str, list[str]] = field(default_factory=dict)
    owned_unfit: list[tuple[str, int, float]] = field(default_factory=list)


def plan_value(cat: Catalog, name: str) -> float:
    """One of the planner's catalog assumptions (catalog/data/plan.toml)."""
    return float(next(a.value for a in cat.extra("plan_assumption") if a.id == name))


def scale_out(c: Candidate, network_default: float) -> ScaleOut:
    """How a multi-machine candidate is joined: its machine size and network (the catalog's
    assumption where the offer states none)."""
    if c.nodes == 1:
        return ScaleOut()
    stated = c.offer.network_gbps if c.offer else None
    return ScaleOut(c.nodes, c.node_devices, stated or network_default, stated is None)


def plan_defaults(cat: Catalog) -> Defaults:
    """Request sizes a scenario may leave out, from the catalog's planner assumptions."""
    values = {a.id: a.value for a in cat.extra("plan_assumption")}
    return Defaults(
        serve_prompt_tokens=int(values["serve_prompt_tokens"]),
        chat_turn_prompt_tokens=int(values["chat_turn_prompt_tokens"]),
    )


def workload_model(cat: Catalog, s: Scenario) -> tuple[LlmModel, str | None]:
    """The model and, for an Ollama tag, the file format the tag names (catalog.reading: the
    one reading `estimate`, `fit` and `record` use too)."""
    reading = read_model_name(cat, s.workload.model)
    return reading.model, reading.tag_quant


def _search(cat: Catalog, s: Scenario, ctx: Context, cs: CandidateSet) -> Search:
    """Size and price every candidate once per (card, device count)."""
    mc, sc = MemoryConstants.from_catalog(cat), SpeedConstants.from_catalog(cat)
    model, tag_quant = workload_model(cat, s)
    feats, rows, defaults = features_of(cat), cat.extra("precision_support"), plan_defaults(cat)
    choices: dict[str, EngineChoice] = {}
    sized_cache: dict[tuple[str, int, ScaleOut], Sized | None] = {}
    network_default = plan_value(cat, "scale_out_network_gbps_per_node")
    owned_all = {(cat.gpu(o.gpu).id, o.count) for o in s.owns}  # said unfit only when all are
    out = Search()
    for c in cs.items:
        gpu = c.gpu
        if gpu.id not in choices:
            choices[gpu.id] = choose_engine(
                s, gpu, mc, rows, feats, tag_quant, model.weight_format_hint
            )
        choice = choices[gpu.id]
        if not choice.quants:
            out.refused[gpu.id] = [q for q, _ in choice.refused]
            if c.already_owned and (gpu.id, c.cards or c.count) in owned_all:
                out.owned_unfit.append((gpu.id, c.cards or c.count, gpu.memory_gb))
            continue
        scale = scale_out(c, network_default)
        key = (gpu.id, c.count, scale)
        if key not in sized_cache:
            si = SizeInputs(model, mc, sc, choice, defaults, scale, reading_floor(cat, s))
            sized_cache[key] = size(s, gpu, c.count, si)
        sized = sized_cache[key]
        out.tried[gpu.id] = gpu.memory_gb
        if sized is None:
            if c.already_owned and (gpu.id, c.cards or c.count) in owned_all:
                # said in the report: the user expects their own cards first
                out.owned_unfit.append((gpu.id, c.cards or c.count, gpu.memory_gb))
            continue
        out.fitted.add(gpu.id)
        option = price(cat, ctx, s, c, sized)
        if option is not None:
            option_risks(cat, s, option, feats, choice)
            out.options.append(option)
    return out


def _faster(o: Option) -> float:
    """Speed to compare configurations of one card: a run's 1/hours, else tokens/s."""
    if o.time_hours:
        return 1.0 / o.time_hours
    return o.sized.tokens_per_s


def drop_slower_with_more(options: list[Option], cs: CandidateSet) -> list[Option]:
    """More devices of the same card and seller that are not faster than fewer cost more for
    nothing (the link between them eats the gain): such options are dropped with a stated
    reason, so a plan never offers N devices slower than fewer of them."""
    groups: dict[tuple[object, ...], list[Option]] = {}
    for o in options:
        c = o.candidate
        seller = (c.provider.id if c.provider else "", c.offer.instance if c.offer else "")
        system = c.system.id if c.system else ""  # two systems of one card are two sellers
        key = (c.kind, c.gpu.id, c.already_owned, *seller, system, c.billing, o.sized.quant)
        groups.setdefault(key, []).append(o)
    kept: list[Option] = []
    for group in groups.values():
        best = 0.0
        for o in sorted(group, key=lambda o: o.candidate.count):
            speed = _faster(o)
            if o.sized.speed_known and best and speed <= best * 1.001:
                cs.drop("more-devices-slower", o.candidate.label)
                continue
            best = max(best, speed if o.sized.speed_known else 0.0)
            kept.append(o)
    return kept


def caveated(o: Option) -> bool:
    """A framework or the chosen format runs on this card only partly (ROCm, CANN, XLA gaps,
    experimental kernels): real work to make it go, on top of the price."""
    return o.sized.support == "partial" or any(k == "risk.partial_support" for k, _ in o.risks)


def _rank_key(s: Scenario) -> Any:
    """Cheapest first, in tiers: every fully known, fully supported option before one whose
    hardware price or speed is unknown (a floor, a guess), and — unless the team has strong ops
    capacity — before one that needs framework or kernel work (partial support). A public API
    (an SLA to keep) prefers a data-centre rental to a marketplace host."""

    def key(o: Option) -> tuple[bool, bool, bool, bool, float, float, str]:
        return (
            incomplete_capex(o),
            not o.sized.speed_known,
            s.ops_capacity != "strong" and caveated(o),
            s.public_api and on_marketplace(o),
            o.cost.total,
            o.time_hours or 0.0,
            o.candidate.label,
        )

    return key


def _pareto(options: list[Option]) -> None:
    """Mark options no other option beats on both total cost and time."""
    timed = sorted(options, key=lambda o: (o.cost.total, o.time_hours or 0.0))
    best_time = float("inf")
    for o in timed:
        t = o.time_hours if o.time_hours is not None else 0.0
        if t < best_time and not incomplete_capex(o):
            o.pareto = True
            best_time = t


def _answers(options: list[Option], margin: float, months: float) -> dict[str, Any]:
    """buy_or_rent, vendor, card, cloud from the cheapest ranked options of each kind.

    Owning and renting within `margin` of each other (the prices' own uncertainty) make the
    answer 'either', with what decides between them: the daily use above which owning wins and
    the month before which renting does. 'either' only compares two fully priced options; a
    floor is never called the cheapest.
    """
    best = options[0] if options else None
    if best is None:
        return {"buy_or_rent": None, "vendor": None, "card": None, "cloud": None}
    own = next((o for o in options if o.candidate.kind == "own" and not incomplete_capex(o)), None)
    rent = next((o for o in options if o.candidate.kind == "rent"), None)
    verdict = "buy" if best.candidate.kind == "own" else "rent"
    either = None
    if own and rent and not incomplete_capex(best):
        gap = abs(own.cost.total - rent.cost.total)
        if gap <= margin * min(own.cost.total, rent.cost.total):
            verdict, either = "either", _deciders(own, rent, months, margin)
    cloud = None
    if verdict != "buy" and rent and rent.candidate.provider:
        cloud = {**_cloud(rent), "ties": _rental_ties(options, rent, margin)}
    return {
        "buy_or_rent": verdict,
        "vendor": best.candidate.gpu.vendor,
        "card": best.candidate.gpu.id,
        "count": best.candidate.cards or best.candidate.count,
        "system": best.candidate.system.id if best.candidate.system else None,
        "systems": best.candidate.systems or None,
        "cloud": cloud,
        "either": either,
    }


def _cloud(o: Option) -> dict[str, Any]:
    """A rental as the answer names it: provider, instance, billing."""
    c = o.candidate
    return {
        "provider": c.provider.id if c.provider else None,
        "instance": c.offer.instance if c.offer else None,
        "billing": c.billing,
    }


def _rental_ties(options: list[Option], rent: Option, margin: float) -> list[dict[str, Any]]:
    """Other rentals whose totals are within `margin` of the best one's: as good an answer,
    given what their prices are known to (at most two, cheapest first)."""
    others = [
        o
        for o in options
        if o.candidate.kind == "rent" and o is not rent and not incomplete_capex(o)
    ]
    close = [o for o in others if o.cost.total <= rent.cost.total * (1 + margin)]
    return [_cloud(o) for o in close[:2]]


def _deciders(own: Option, rent: Option, months: float, margin: float) -> dict[str, Any]:
    """What settles a near tie: owning wins above `own_above_hours_per_day` of use; renting
    wins if the project ends before `rent_before_month` (None where that side never wins)."""
    from gpuwise.advise.fired import option_label

    be = break_even_of(own, rent, months) if own.own_spec and rent.rent_spec else None
    hours = be.hours_per_day if be else None
    return {
        "own": option_label(own),
        "rent": option_label(rent),
        "margin": margin,
        "own_above_hours_per_day": None if hours is None else round(hours, 1) + 0.0,
        "cheaper_always": be.cheaper_always if be else None,
        "rent_before_month": be.months if be else None,
    }


def reading_floor(cat: Catalog, s: Scenario) -> float | None:
    """Tokens/s all of a service's requests need together when the scenario sets no target:
    each concurrent request at least as fast as people read (catalog plan_assumption
    `min_tokens_per_s_per_request`)."""
    w = s.workload
    if w.kind == "train" or w.target_tokens_per_s:
        return None
    requests = w.concurrency if w.kind == "serve" else 1
    return requests * plan_value(cat, "min_tokens_per_s_per_request")


def _classify(
    s: Scenario, options: list[Option], budget: float | None, floor: float | None = None
) -> tuple[list[Option], list[Option], list[Option]]:
    """(ranked, unchecked, infeasible): passing, not checkable, breaking a limit."""
    for o in options:
        check_constraints(s, o, budget, floor)
    ranked = sorted((o for o in options if o.feasible and o.checked), key=_rank_key(s))
    unchecked = sorted((o for o in options if o.feasible and not o.checked), key=_rank_key(s))
    infeasible = sorted((o for o in options if not o.feasible), key=lambda o: o.cost.total)
    return ranked, unchecked, infeasible


def make_plan(
    cat: Catalog,
    s: Scenario,
    today: dt.date,
    cny_per_usd: float | None = None,
    fixes: bool = True,
) -> Plan:
    """Rank every option for the scenario (pure: the catalog and today come in). With no
    option ranked, `fixes` plans again with each change that could help and keeps those that
    do (advise/fixes.py)."""
    ctx = make_context(cat, s.currency, today, cny_per_usd)
    region = find_region(cat, s.region)
    buyer, assumed = buyer_of(region, ctx.currency)
    cs = candidates(cat, s, region, buyer)
    found = _search(cat, s, ctx, cs)
    price_marketplace_risk(cat, s, found.options)
    found.options = cheapest_billing(found.options)
    budget = ctx.money(s.budget.amount, s.budget.currency) if s.budget else None
    found.options = drop_slower_with_more(found.options, cs)
    floor = reading_floor(cat, s)
    ranked, unchecked, infeasible = _classify(s, found.options, budget, floor)
    ranked, unchecked = best_use_of_each_system(ranked), best_use_of_each_system(unchecked)
    set_aside: list[Option] = []
    if s.workload.kind == "local" and any(o.candidate.kind == "own" for o in ranked):
        # local chat runs on your own machine; the guide rents only when no card fits
        set_aside = [o for o in ranked if o.candidate.kind == "rent"]
        ranked = [o for o in ranked if o.candidate.kind == "own"]
    _pareto(ranked)
    unfit = sorted(
        ((g, mem) for g, mem in found.tried.items() if g not in found.fitted),
        key=lambda kv: -kv[1],
    )
    margin = assumption(cat, "price_uncertainty_fraction").value
    plan = Plan(
        s,
        ranked,
        infeasible,
        _answers(ranked, margin, s.months),
        dropped=cs.dropped,
        dropped_examples=cs.examples,
        unfit=unfit,
        refused=found.refused,
        set_aside=set_aside,
        unchecked=unchecked,
        currency=ctx.currency,
        owned_unfit=found.owned_unfit,
    )
    if assumed:
        plan.assumptions.append(("plan.assume_buyer_cn", {}))
    if any(o.candidate.kind == "own" for o in (*ranked, *infeasible, *unchecked)):
        plan.assumptions.append(_power_assumption(cat, s, ctx))
    plan.assumptions += band_assumption(s, floor, ranked)
    if cs.dropped.get("more-devices-slower"):
        examples = ", ".join(cs.examples.get("more-devices-slower", []))
        n = cs.dropped["more-devices-slower"]
        plan.assumptions.append(("plan.note_more_devices_slower", {"n": n, "examples": examples}))
    from gpuwise.advise.fired import fire_rules
    from gpuwise.advise.fixes import Replan, suggest_fixes

    plan.rules = fire_rules(cat, plan, ctx)
    if not ranked and fixes:
        plan.suggestions = suggest_fixes(cat, s, plan, Replan(cat, today, cny_per_usd))
    return plan


def _power_assumption(cat: Catalog, s: Scenario, ctx: Context) -> tuple[str, dict[str, Any]]:
    """What owned machines are charged for power: the tariff of whoever pays, where they sit
    (PUE), and the share of TDP a busy card draws; the plan says it, so it can be changed."""
    from gpuwise.cost.power import busy_fraction, default_tariff, site_pue
    from gpuwise.i18n import t

    region = None if s.region.strip().lower() in ("any", "") else s.region
    key = s.tariff or default_tariff(cat, ctx.currency, s.payer(), region)
    preset = next((x for x in cat.extra("tariff") if x.id == key.lower()), None)
    pue, site = site_pue(cat, s.owned_site(), None)
    params: dict[str, Any] = {"pue": pue, "pct": busy_fraction(cat, s.workload.kind)}
    for lang in ("en", "zh"):
        name = getattr(preset, f"name_{lang}") if preset else f"{key}/kWh"
        params[f"tariff_{lang}"] = name
        params[f"who_{lang}"] = t(f"plan.entity_{s.entity}", lang=lang)
        params[f"site_{lang}"] = t(f"site.{site}", lang=lang)
    return ("plan.assume_power", params)


def hours_per_day_of(o: Option) -> float:
    """An option's busy hours a month as hours per day."""
    return o.busy_hours_per_month / DAYS_PER_MONTH


def break_even_of(own: Option, rent: Option, months: float) -> Any:
    """Break-even between an owning and a renting option at the owning option's use."""
    assert own.own_spec and rent.rent_spec and rent.usage
    return break_even(own.own_spec, rent.rent_spec, hours_per_day_of(own), months, rent.usage)


__all__ = ["Candidate", "Plan", "incomplete_capex", "make_plan"]
