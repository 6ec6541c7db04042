"""Every candidate sized and billed once: the search a plan ranks.

Each (card, device count) is sized with the engine and format that run it (advise/sizing.py)
and billed (advise/evaluate.py); then the risks and items that apply across options are added
(the mainland, a region listed everywhere, marketplaces, a public API's spare, an institution's
overhead), one billing mode is kept per offer, and more devices of one card and seller that are
no faster than fewer are dropped with the reason said. Pure: the catalog comes in.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from gpuwise.advise.billing import cheapest_billing
from gpuwise.advise.candidates import Candidate, CandidateSet
from gpuwise.advise.companions import companion_bytes, companion_loads
from gpuwise.advise.engines import EngineChoice, choose_engine, without_model_kernels
from gpuwise.advise.evaluate import Option, incomplete_capex, price
from gpuwise.advise.failover import price_public_api_failover
from gpuwise.advise.host_arch import flag_arm_hosts
from gpuwise.advise.margin import (
    slow_tokens_per_s,
)
from gpuwise.advise.marketplace import (
    flag_marketplace_data,
    price_marketplace_risk,
)
from gpuwise.advise.overhead import price_rental_overhead
from gpuwise.advise.owned_extend import (
    OwnedInputs,
    owned_options,
    same_card_extensions,
    without_card_format,
)
from gpuwise.advise.quality import job_floors, quality_floor_risk
from gpuwise.advise.reasons import features_of, option_risks
from gpuwise.advise.regions import (
    flag_mainland_rentals,
    flag_unconfirmed_regions,
)
from gpuwise.advise.scenario import Scenario
from gpuwise.advise.sized import ScaleOut, Sized, SizeInputs, weight_bits
from gpuwise.advise.sizing import size
from gpuwise.advise.workload import (
    plan_defaults,
    reading_floor,
    workload_model,
)
from gpuwise.catalog import Catalog
from gpuwise.catalog.precision import SupportVerdict
from gpuwise.catalog.schema import Gpu
from gpuwise.cost.resolve import Context
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.pooling import pools
from gpuwise.estimate.speed_constants import SpeedConstants
from gpuwise.estimate.speed_scaleout import Fabric

if TYPE_CHECKING:
    from gpuwise.catalog.schema_advise import Region


@dataclass
class Search:
    """What sizing every candidate found: priced options, cards too small, formats refused."""

    options: list[Option] = field(default_factory=list)
    fitted: set[str] = field(default_factory=set)
    tried: dict[str, float] = field(default_factory=dict)
    refused: dict[str, list[str]] = field(default_factory=dict)
    refused_why: dict[str, SupportVerdict] = field(default_factory=dict)
    """A refused card's first reason: the engine's verdict on its first format."""
    owned_unfit: list[tuple[str, int, float]] = field(default_factory=list)
    small_rentals: list[Candidate] = field(default_factory=list)
    """Rentals whose one machine cannot hold a training job and that are too small to be
    joined into a cluster (plan assumption scale_out_min_node_gpus): said, not dropped
    silently (blind w52-05: India's one-GPU H100 VMs vanished from a 14B full fine-tune)."""


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
    if c.already_owned and c.owned_network_gbps_per_gpu:  # what the user says theirs has
        stated = c.owned_network_gbps_per_gpu * c.node_devices
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
            choice = choose_engine(s, gpu, mc, rows, feats, tag_quant, native, owned, pools(model))
            choices[(gpu.id, owned)] = without_model_kernels(model, gpu, choice)
        return choices[(gpu.id, owned)]

    sized_cache: dict[tuple[str, int, ScaleOut, str, bool], Sized | None] = {}
    values = {a.id: a.value for a in cat.extra("plan_assumption")}
    owned_all = {(cat.gpu(o.gpu).id, o.count) for o in s.owns}  # said unfit only when all are
    floor = reading_floor(cat, s)
    batch_bits = values["batch_quality_floor_bits"] if s.workload.batch_requests() else None
    shipped = model.weight_format_hint
    floors = job_floors(
        batch_bits,
        None if s.workload.kind == "train" else values["interactive_quality_floor_bits"],
        weight_bits(mc, shipped) if shipped else None,
    )
    batch_bits = floors[0]
    memo: dict[tuple[object, ...], Any] = {}  # memory estimates, shared across cards
    beside = companion_bytes(cat, s.workload.companion_names(), mc) if s.workload.companions else 0
    loads = companion_loads(cat, s.workload.companions)
    enough: dict[tuple[object, ...], int] = {}  # machines of a kind that meet the target
    out = Search()

    def sized_for(c: Candidate, choice: EngineChoice) -> Sized | None:
        """The candidate sized once per (card, devices, machines, engine)."""
        scale = scale_out(c, values, s.workload.kind)
        key = (c.gpu.id, c.count, scale, choice.engine, c.already_owned)
        if key not in sized_cache:
            budgets = step_budgets(cat, choice.engine)
            si = SizeInputs(model, mc, sc, choice, defaults, scale, floor, budgets)
            si = replace(
                si,
                batch_floor_bits=batch_bits,
                memo=memo,
                companion_bytes=beside,
                companion_loads=loads,
                host_offload=c.already_owned,
            )
            sized_cache[key] = size(s, c.gpu, c.count, si)
        return sized_cache[key]

    for c in cs.items:
        gpu = c.gpu
        choice = choice_of(gpu, c.already_owned)
        if not choice.quants:
            out.refused[gpu.id] = [q for q, _ in choice.refused]
            if choice.refused:
                out.refused_why[gpu.id] = choice.refused[0][1]
            if c.already_owned and (gpu.id, c.cards or c.count) in owned_all:
                out.owned_unfit.append((gpu.id, c.cards or c.count, gpu.memory_gb))
            continue
        machine = machine_key(c, choice.engine)
        if c.nodes > enough.get(machine, c.nodes):
            continue  # fewer of these machines already meet the target safely: more only cost
        sized = sized_for(c, choice)
        out.tried[gpu.id] = gpu.memory_gb
        if sized is None:
            if _too_small_to_join(s, c, values):
                out.small_rentals.append(c)
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
    slow = _owned_too_slow(s, out.options)
    if slow is not None:  # more of the owned card in the owned PC (advise/owned_extend.py)
        gpu, bought = slow.candidate.gpu, choice_of(slow.candidate.gpu, False)
        of = lambda n: sized_for(Candidate("own", gpu, n, cards=n), bought)  # noqa: E731
        for option in same_card_extensions(cat, ctx, s, slow, of, buyer):
            option_risks(cat, s, option, feats, bought, model.vision is not None)
            out.options.append(option)
    if out.owned_unfit:  # keep the owned cards: add cards or offload (advise/owned_extend.py)
        si = SizeInputs(model, mc, sc, EngineChoice("", ()), defaults, ScaleOut(), floor, memo=memo)
        # the models served beside it take their memory on these cards too (blind w52-03)
        si = replace(si, batch_floor_bits=batch_bits, companion_bytes=beside, companion_loads=loads)
        for option in owned_options(cat, ctx, s, OwnedInputs(si, choice_of, buyer)):
            owned_choice = choice_of(option.candidate.gpu, False)
            option_risks(cat, s, option, feats, owned_choice, model.vision is not None)
            out.options.append(without_card_format(option))
    return out


def _too_small_to_join(s: Scenario, c: Candidate, values: dict[str, float]) -> bool:
    """A rented machine that cannot hold a training job alone and is never joined with more
    of it (machines below cluster-node size have no published network between them)."""
    small = c.node_devices < values["scale_out_min_node_gpus"]
    return c.kind == "rent" and c.nodes == 1 and s.workload.kind == "train" and small


def _owned_too_slow(s: Scenario, options: list[Option]) -> Option | None:
    """The option on all the cards the user owns, of one kind, where it holds the service's
    model but misses its speed target at the slow end of its band; None otherwise."""
    target = s.workload.target_tokens_per_s
    if s.workload.kind != "serve" or not target or s.workload.one_off() or len(s.owns) != 1:
        return None
    for o in options:
        c = o.candidate
        if c.already_owned and (c.cards or c.count) == s.owns[0].count and o.sized.speed_known:
            return o if slow_tokens_per_s(o.sized) < target else None
    return None


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


def mark_pareto(options: list[Option]) -> None:
    """Mark options no other option beats on both total cost and time."""
    timed = sorted(options, key=lambda o: (o.cost.total, o.time_hours or 0.0))
    best_time = float("inf")
    for o in timed:
        t = o.time_hours if o.time_hours is not None else 0.0
        if t < best_time and not incomplete_capex(o):
            o.pareto = True
            best_time = t


def priced_options(
    cat: Catalog,
    s: Scenario,
    ctx: Context,
    cs: CandidateSet,
    buyer: str | None,
    region: Region | None,
) -> Search:
    """Every candidate sized and billed, with the risks and items that apply across them (the
    mainland, a region listed everywhere, marketplaces, a public API's spare, an institution's
    overhead), one billing mode per offer, and no more devices that are no faster than fewer."""
    found = _search(cat, s, ctx, cs, buyer)
    flag_mainland_rentals(found.options, buyer, ctx.currency)
    flag_unconfirmed_regions(found.options, region)
    price_marketplace_risk(cat, s, found.options)
    flag_marketplace_data(s, found.options)
    flag_arm_hosts(found.options)
    price_public_api_failover(s, found.options)
    price_rental_overhead(s, found.options)
    found.options = cheapest_billing(found.options)
    found.options = drop_slower_with_more(found.options, cs)
    return found
