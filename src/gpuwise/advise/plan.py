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
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from gpuwise.advise.answers import answers_of
from gpuwise.advise.billing import cheapest_billing
from gpuwise.advise.candidates import Candidate, CandidateSet, candidates
from gpuwise.advise.companions import companion_bytes
from gpuwise.advise.engines import EngineChoice, choose_engine
from gpuwise.advise.evaluate import Option, best_use_of_each_system, incomplete_capex, price
from gpuwise.advise.failover import cold_twins, price_public_api_failover, with_cold_standby
from gpuwise.advise.fired import fire_rules
from gpuwise.advise.limits import check_constraints
from gpuwise.advise.margin import (
    band_assumption,
    slow_tokens_per_s,
    spot_slack_check,
    sure_owned_first,
)
from gpuwise.advise.marketplace import (
    flag_marketplace_data,
    price_marketplace_risk,
)
from gpuwise.advise.notes import plan_notes
from gpuwise.advise.outcome import Plan, break_even_of, hours_per_day_of
from gpuwise.advise.overhead import price_rental_overhead
from gpuwise.advise.owned_extend import OwnedInputs, owned_options, without_card_format
from gpuwise.advise.quality import quality_floor_risk
from gpuwise.advise.ranking import TIERS, rank_key
from gpuwise.advise.reasons import features_of, option_risks
from gpuwise.advise.regions import (
    buyer_of,
    find_region,
    flag_mainland_rentals,
    flag_unconfirmed_regions,
)
from gpuwise.advise.scenario import Scenario
from gpuwise.advise.sized import ScaleOut, Sized, SizeInputs, weight_bits
from gpuwise.advise.sizing import size
from gpuwise.advise.ties import shorter_run_first
from gpuwise.advise.workload import (
    plan_defaults,
    plan_value,
    reading_floor,
    with_assumed_concurrency,
    workload_model,
)
from gpuwise.catalog import Catalog
from gpuwise.catalog.schema import Gpu
from gpuwise.cost.model import busy_hours_per_month
from gpuwise.cost.power import assumption
from gpuwise.cost.resolve import Context, make_context
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.pooling import pools
from gpuwise.estimate.speed_constants import SpeedConstants
from gpuwise.estimate.speed_scaleout import Fabric

if TYPE_CHECKING:
    from gpuwise.advise.fixes import Replan


@dataclass
class Search:
    """What sizing every candidate found: priced options, cards too small, formats refused."""

    options: list[Option] = field(default_factory=list)
    fitted: set[str] = field(default_factory=set)
    tried: dict[str, float] = field(default_factory=dict)
    refused: dict[str, list[str]] = field(default_factory=dict)
    owned_unfit: list[tuple[str, int, float]] = field(default_factory=list)


def scale_out(c: Candidate, values: dict[str, float], kind: str = "train") -> ScaleOut:
    """How a multi-machine candidate is joined: its machine size and network (the offer's or
    the system's stated fabric, else the catalog's Ethernet assumption), and how a replica
    spanning machines uses it (catalog plan assumptions scale_out_*). Replicas of machines too
    small to span never use the network between them: their sizing is shared by every seller
    of such machines (one cache key)."""
    if c.nodes == 1:
        return ScaleOut()
    if kind == "serve" and c.node_devices < values["scale_out_min_node_gpus"]:
        return ScaleOut(c.nodes, c.node_devices)
    stated = c.offer.network_gbps if c.offer else None
    if c.system is not None and c.system.network_gbps_per_gpu:
        stated = c.system.network_gbps_per_gpu * c.node_devices
    gbps = stated or values["scale_out_network_gbps_per_node"]
    fabric = Fabric(
        gbps_per_node=gbps,
        efficiency=values["scale_out_alltoall_efficiency"],
        latency_s=values["scale_out_message_latency_us"] * 1e-6,
        overlap=values["scale_out_overlap_share"],
    )
    may_span = c.node_devices >= values["scale_out_min_node_gpus"]
    return ScaleOut(c.nodes, c.node_devices, gbps, stated is None, may_span, fabric)


def step_budgets(cat: Catalog, engine: str) -> tuple[int, ...]:
    """The step token budgets worth trying for the engine (catalog step_budget)."""
    for row in cat.extra("step_budget"):
        if row.engine == engine:
            return tuple(row.tokens)
    return ()


def machine_key(c: Candidate, engine: str) -> tuple[object, ...]:
    """One kind of machine, whatever its billing: the same sizing for any number of them."""
    seller = c.offer.instance if c.offer else (c.system.id if c.system else str(c.cards))
    return (c.kind, c.gpu.id, c.already_owned, c.provider.id if c.provider else "", seller, engine)


def enough_at(s: Scenario, sized: Sized, choice: EngineChoice, floor: float | None) -> int:
    """How many more of these machines are still worth sizing once `sized` (N of them) meets
    the service's target at the slow end: none in the least compressed format (more machines
    cost N × one and cannot do better); up to twice as many in a compressed one (they may
    afford a less compressed format, a dearer alternative worth showing). 0 where the target
    is not met safely."""
    target = max(s.workload.target_tokens_per_s or 0.0, floor or 0.0)
    if s.workload.kind != "serve" or not target or not sized.speed_known or not choice.quants:
        return 0
    if slow_tokens_per_s(sized) < target:
        return 0
    return 1 if sized.quant == choice.quants[0] else 2


def _search(
    cat: Catalog, s: Scenario, ctx: Context, cs: CandidateSet, buyer: str | None = None
) -> Search:
    """Size and price every candidate once per (card, device count)."""
    mc, sc = MemoryConstants.from_catalog(cat), SpeedConstants.from_catalog(cat)
    model, tag_quant = workload_model(cat, s)
    feats, rows, defaults = features_of(cat), cat.extra("precision_support"), plan_defaults(cat)
    choices: dict[tuple[str, bool], EngineChoice] = {}

    def choice_of(gpu: Gpu, owned: bool) -> EngineChoice:
        """The engine and formats for a card, chosen once (owned: the fallback engines too)."""
        if (gpu.id, owned) not in choices:
            native = model.weight_format_hint
            choices[(gpu.id, owned)] = choose_engine(
                s, gpu, mc, rows, feats, tag_quant, native, owned, pools(model)
            )
        return choices[(gpu.id, owned)]

    sized_cache: dict[tuple[str, int, ScaleOut, str], Sized | None] = {}
    values = {a.id: a.value for a in cat.extra("plan_assumption")}
    owned_all = {(cat.gpu(o.gpu).id, o.count) for o in s.owns}  # said unfit only when all are
    floor = reading_floor(cat, s)
    batch_bits = values["batch_quality_floor_bits"] if s.workload.batch_requests() else None
    floors = (
        batch_bits,
        None if s.workload.kind == "train" else values["interactive_quality_floor_bits"],
    )
    memo: dict[tuple[object, ...], Any] = {}  # memory estimates, shared across cards
    beside = companion_bytes(cat, s.workload.companions, mc) if s.workload.companions else 0
    enough: dict[tuple[object, ...], int] = {}  # machines of a kind that meet the target
    out = Search()
    for c in cs.items:
        gpu = c.gpu
        choice = choice_of(gpu, c.already_owned)
        if not choice.quants:
            out.refused[gpu.id] = [q for q, _ in choice.refused]
            if c.already_owned and (gpu.id, c.cards or c.count) in owned_all:
                out.owned_unfit.append((gpu.id, c.cards or c.count, gpu.memory_gb))
            continue
        machine = machine_key(c, choice.engine)
        if c.nodes > enough.get(machine, c.nodes):
            continue  # fewer of these machines already meet the target safely: more only cost
        scale = scale_out(c, values, s.workload.kind)
        key = (gpu.id, c.count, scale, choice.engine)
        if key not in sized_cache:
            budgets = step_budgets(cat, choice.engine)
            si = SizeInputs(model, mc, sc, choice, defaults, scale, floor, budgets)
            si = replace(si, batch_floor_bits=batch_bits, memo=memo, companion_bytes=beside)
            sized_cache[key] = size(s, gpu, c.count, si)
        sized = sized_cache[key]
        out.tried[gpu.id] = gpu.memory_gb
        if sized is None:
            if c.already_owned and (gpu.id, c.cards or c.count) in owned_all:
                # said in the report: the user expects their own cards first
                out.owned_unfit.append((gpu.id, c.cards or c.count, gpu.memory_gb))
            continue
        out.fitted.add(gpu.id)
        factor = enough_at(s, sized, choice, floor) if c.nodes > 1 else 0
        if factor:
            enough[machine] = min(enough.get(machine, c.nodes * factor), c.nodes * factor)
        option = price(cat, ctx, s, c, sized)
        if option is not None:
            option_risks(cat, s, option, feats, choice, model.vision is not None)
            floor_risk = quality_floor_risk(sized.quant, weight_bits(mc, sized.quant), floors)
            option.risks += [floor_risk] if floor_risk else []
            out.options.append(option)
    if out.owned_unfit:  # keep the owned cards: add cards or offload (advise/owned_extend.py)
        si = SizeInputs(model, mc, sc, EngineChoice("", ()), defaults, ScaleOut(), floor, memo=memo)
        for option in owned_options(cat, ctx, s, OwnedInputs(si, choice_of, buyer)):
            owned_choice = choice_of(option.candidate.gpu, False)
            option_risks(cat, s, option, feats, owned_choice, model.vision is not None)
            out.options.append(without_card_format(option))
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
        owned = (c.owned_kept, c.offload_fraction > 0)  # owned cards kept: another machine
        key = (c.kind, c.gpu.id, c.already_owned, *seller, system, *owned, c.billing, o.sized.quant)
        groups.setdefault(key, []).append(o)
    kept: list[Option] = []
    for group in groups.values():
        best = 0.0
        for o in sorted(group, key=lambda o: o.candidate.count):
            speed = _faster(o)
            if o.sized.speed_known and best and speed <= best * 1.001:
                cs.drop("more-devices-slower", o.candidate.label, o.candidate)
                continue
            best = max(best, speed if o.sized.speed_known else 0.0)
            kept.append(o)
    return kept


def _pareto(options: list[Option]) -> None:
    """Mark options no other option beats on both total cost and time."""
    timed = sorted(options, key=lambda o: (o.cost.total, o.time_hours or 0.0))
    best_time = float("inf")
    for o in timed:
        t = o.time_hours if o.time_hours is not None else 0.0
        if t < best_time and not incomplete_capex(o):
            o.pareto = True
            best_time = t


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
        check_constraints(s, o, budget, floor)
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
    hardware alone (that share's search)."""
    s, assumed_concurrency = with_assumed_concurrency(cat, s)
    ctx = make_context(cat, s.currency, today, cny_per_usd)
    region = find_region(cat, s.region)
    buyer, assumed = buyer_of(region, ctx.currency)
    cs = candidates(cat, s, region, buyer)
    if only_owned:
        cs.items = [c for c in cs.items if c.already_owned]
    found = _search(cat, s, ctx, cs, buyer)
    flag_mainland_rentals(found.options, buyer, ctx.currency)
    flag_unconfirmed_regions(found.options, region)
    price_marketplace_risk(cat, s, found.options)
    flag_marketplace_data(s, found.options)
    price_public_api_failover(s, found.options)
    price_rental_overhead(s, found.options)
    found.options = cheapest_billing(found.options)
    budget = ctx.money(s.budget.amount, s.budget.currency) if s.budget else None
    found.options = drop_slower_with_more(found.options, cs)
    floor = reading_floor(cat, s)
    margin = assumption(cat, "price_uncertainty_fraction").value
    slack = plan_value(cat, "spot_deadline_slack") if s.spot_needs_slack() else None
    twins = cold_twins(s, found.options)  # copied before the limits are checked
    ranked, unchecked, infeasible = _classify(s, found.options, budget, floor, margin, slack)
    passing = lambda os: _classify(s, os, budget, floor, margin, slack)[0]  # noqa: E731
    rank = rank_key(s, margin)
    ranked = with_cold_standby(ranked, twins, passing, rank)
    ranked = sure_owned_first(ranked, lambda o: rank(o)[:TIERS])
    if s.owns and not only_owned and not any(o.candidate.already_owned for o in ranked):
        from gpuwise.advise.fixes import Replan as Owned  # imported only where hardware is owned

        replan = Owned(cat, today, cny_per_usd, make_plan)
        from gpuwise.advise.owned_beside import with_owned_beside

        ranked, infeasible = with_owned_beside(s, ranked, infeasible, budget, replan, rank)
    mc = MemoryConstants.from_catalog(cat)
    bits: Callable[[str], float] = lambda q: weight_bits(mc, q)  # noqa: E731
    ranked = best_use_of_each_system(ranked, bits)
    unchecked = best_use_of_each_system(unchecked, bits)
    tier = lambda o: rank_key(s, margin)(o)[:TIERS]  # noqa: E731
    if s.workload.one_off():  # a cost tie between runs goes to the sooner end (advise/ties.py)
        ranked = shorter_run_first(ranked, margin, tier)
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
        set_aside=set_aside,
        unchecked=unchecked,
        currency=ctx.currency,
        owned_unfit=found.owned_unfit,
    )
    if assumed:
        plan.assumptions.append(("plan.assume_buyer_cn", {}))
    if s.one_run_assumed():
        plan.assumptions.append(("plan.note_one_run", {}))
    if s.days_per_week < 7 and not s.workload.one_off():
        busy = busy_hours_per_month(s.hours_per_day, s.days_per_week)
        week = {"hours": s.hours_per_day, "days": s.days_per_week, "busy": busy}
        plan.assumptions.append(("plan.note_days_per_week", week))
    if s.domestic_preference_pct:
        plan.assumptions.append(
            ("plan.note_domestic_preference", {"pct": s.domestic_preference_pct})
        )
    if assumed_concurrency and s.workload.batch_requests():
        batch = {"n": assumed_concurrency, "samples": s.workload.batch_requests()}
        plan.assumptions.append(("plan.note_batch_concurrency_assumed", batch))
    elif assumed_concurrency:
        params = {"n": assumed_concurrency, "target": s.workload.target_tokens_per_s}
        plan.assumptions.append(("plan.note_concurrency_assumed", params))
    plan.assumptions += plan_notes(cat, plan, ctx, cs)
    plan.assumptions += band_assumption(s, floor, ranked)

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
