"""Price and time one candidate for the scenario: its schedule, its bill, the option.

What it is then held against (the budget, the deadline, the speed asked) is advise/limits.py.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from gpuwise.advise.candidates import Candidate
from gpuwise.advise.duty import server_grade_host
from gpuwise.advise.margin import (
    at_risk_of_missing,
)
from gpuwise.advise.regions import ANY
from gpuwise.advise.scenario import Scenario
from gpuwise.advise.sized import Sized, joined_machines
from gpuwise.advise.stop_start import rental_busy_hours
from gpuwise.catalog import Catalog
from gpuwise.catalog.schema_cloud import HOURS_PER_MONTH
from gpuwise.cost import CostOption, OwnSpec, RentSpec, RentUsage, own_cost, rent_cost
from gpuwise.cost.model import PriceRef, busy_hours_per_month
from gpuwise.cost.rent import COMMIT_MONTHS
from gpuwise.cost.resolve import Context, OwnOptions, resolve_own, resolve_rent
from gpuwise.cost.session import session_overhead
from gpuwise.cost.system import as_system_cost, resolve_system
from gpuwise.errors import UserError

Fired = tuple[str, dict[str, Any]]
CAPEX_ITEMS = {"cards", "host", "system", "compute"}
"""Items without which a total is only a floor: the hardware, or the instance itself."""


@dataclass
class Option:
    """A priced, timed candidate and what makes it risky, unchecked or infeasible."""

    candidate: Candidate
    sized: Sized
    cost: CostOption
    busy_hours_per_month: float
    time_hours: float | None
    stale_prices: int = 0
    own_spec: OwnSpec | None = None
    rent_spec: RentSpec | None = None
    usage: RentUsage | None = None
    risks: list[Fired] = field(default_factory=list)
    rules: list[Fired] = field(default_factory=list)
    blockers: list[Fired] = field(default_factory=list)
    unchecked: list[Fired] = field(default_factory=list)
    pareto: bool = False
    platform: str | None = None
    prices: tuple[PriceRef, ...] = ()
    """The dated prices the option rests on (published date, retrieved date, origin)."""
    billing_alternatives: dict[str, float] = field(default_factory=dict)
    """What the same offer would cost in its other billing modes (advise.billing)."""
    cold_standby: bool = False
    """A public API's option run with no spare replica: a replacement is started or the
    machine repaired when it fails (advise/failover.py)."""
    spare_replicas: int = 0
    """Copies its hot spare holds: one machine's share of the load (advise/failover.py)."""
    beside: Option | None = None
    """The owned hardware kept serving its share of the requests beside this option's
    (advise/owned_beside.py); its running cost is in this option's bill."""

    @property
    def undated_prices(self) -> int:
        """Prices whose source states no date ("date unknown"); the user's own values excluded."""
        return sum(p.undated and p.origin != "user" for p in self.prices)

    @property
    def user_quote(self) -> bool:
        """The instance price is the user's own quote (an override file), not a public one."""
        return any(p.origin == "user" and p.label.startswith("offer:") for p in self.prices)

    @property
    def feasible(self) -> bool:
        """No hard constraint broken (budget, deadline, throughput, framework)."""
        return not self.blockers

    @property
    def checked(self) -> bool:
        """Every limit the scenario sets could be checked for this option."""
        return not self.unchecked


def best_use_of_each_system(
    ranked: list[Option], bits: Callable[[str], float] | None = None
) -> list[Option]:
    """One way to use each system purchase: the same servers bought with fewer or more of
    their devices busy are the same money spent (only the power differs), so the list shows
    it once, in the way an owner would run it: a use that meets the targets at the slow end
    of its band first, then the least compressed format, then the fastest (the shortest run,
    the most tokens/s). Ranked by cost alone, 2 of 8 cards at 4 bits beat all 8 at FP8 by
    their idle cards' power (blind w12-04); by format alone, one 16-bit copy on 4 of 8 NPUs
    that meets the target only at its central estimate beat two 8-bit copies on all 8 that
    meet it at the slow end, the owner's obvious use of the idle half (blind w29-04): the
    same order as the sizing's own layout choice (advise/sizing_pick.pick_layout). Without
    `bits`, the best-ranked."""
    groups: dict[tuple[object, ...], list[Option]] = {}
    for o in ranked:
        c = o.candidate
        if c.system is not None and not c.already_owned:  # beside owned ones: another use
            groups.setdefault((c.system.id, c.systems, c.beside_owned), []).append(o)

    def use(o: Option) -> tuple[bool, float, float]:
        if not bits:
            return (False, 0.0, 0.0)
        speed = 1.0 / o.time_hours if o.time_hours else o.sized.tokens_per_s
        return (not at_risk_of_missing(o.risks), bits(o.sized.quant), speed)

    chosen = {id(max(members, key=use)) for members in groups.values()}  # ties: best-ranked
    return [
        o
        for o in ranked
        if o.candidate.system is None or o.candidate.already_owned or id(o) in chosen
    ]


def caveated(o: Option) -> bool:
    """A framework or the chosen format runs on this card only partly (ROCm, CANN, XLA gaps,
    experimental kernels): real work to make it go, on top of the price."""
    return caveats(o) > 0


def caveats(o: Option) -> int:
    """How many layers run only partly: the framework's stack on the card (vllm-ascend, ROCm
    gaps: risk.partial_support) and the chosen format on it (an engine fork's undocumented
    16-bit path). Two partial layers are more porting work than one, so between two caveated
    options the one with fewer ranks first (ranking.rank_key), whatever a few yuan say."""
    stack = any(k == "risk.partial_support" for k, _ in o.risks)
    return int(stack) + int(o.sized.support == "partial")


def incomplete_capex(o: Option) -> bool:
    """The card, host or instance has no price: the total is a floor, not a cost to rank by."""
    return bool(CAPEX_ITEMS & set(o.cost.unpriced))


@dataclass(frozen=True)
class Schedule:
    """When the work runs on one option, so that it is billed for the time it really needs.

    `months` is the project's length, or longer when the runs need more hours than its months
    have (one machine is busy at most 730 h a month); `busy_hours_per_month` spreads the work
    over those months, so it never exceeds a month's hours. `active_months` are the months in
    which rented capacity is needed at all: a one-off 40-hour run needs one month of a monthly
    bill, not twelve.
    """

    busy_hours_per_month: float
    run_hours: float | None
    months: float
    active_months: float


def run_hours(s: Scenario, sized: Sized) -> float | None:
    """Hours one run of a one-off job takes on this option: a training run's estimate, or a
    batch's tokens over the option's throughput at its concurrency (output tokens, or input
    tokens for an embedder); None for a service or when the speed is unknown."""
    w = s.workload
    if w.kind == "train":
        return sized.hours_per_run if w.train_tokens() > 0 else None
    if not w.batch_requests() or not sized.speed_known or sized.tokens_per_s <= 0:
        return None
    per_request = (w.prompt_tokens or w.context) if sized.pooling else w.gen_tokens
    return w.batch_requests() * per_request / sized.tokens_per_s / 3600


def schedule(s: Scenario, sized: Sized) -> Schedule:
    """The option's schedule: training runs and batches from their hours (at least one run over
    the project), a service from its hours a day."""
    w = s.workload
    hours = run_hours(s, sized)
    if hours:
        # a project runs its job at least once: a two-week batch (months: 0.5) is one run, not
        # half of one (blind w63-04: every total halved, unsaid)
        runs = max(1.0, w.runs_per_month * s.months)
        total = runs * hours
        months = max(s.months, total / HOURS_PER_MONTH)
        months_per_run = math.ceil(hours / HOURS_PER_MONTH - 1e-9)
        active = min(months, max(1, math.ceil(runs - 1e-9)) * months_per_run)
        return Schedule(total / months, hours, months, active)
    busy = busy_hours_per_month(s.hours_per_day, s.days_per_week)
    return Schedule(busy, None, s.months, s.months)


def usage_hours(s: Scenario, sized: Sized) -> tuple[float, float | None]:
    """(busy hours a month, hours of one training run or None when serving)."""
    sch = schedule(s, sized)
    return sch.busy_hours_per_month, sch.run_hours


def rent_usage(s: Scenario, sized: Sized) -> RentUsage:
    """Storage and traffic a rental needs: the scenario's, else the weights plus the data set
    (token ids as 4-byte integers) kept on a cloud disk; a single one-off run's disk only
    while it runs (a data set the user states, `data_gb`, is kept for the project)."""
    w = s.workload
    weights_gb = sized.memory.breakdown["weights"] / 1e9 * sized.count
    data_gb = s.data_gb or weights_gb + (w.train_tokens() * 4 / 1e9 if w.kind == "train" else 0.0)
    single_run = w.one_off() and w.runs_per_month * s.months <= 1 + 1e-9
    return RentUsage(
        data_gb=math.ceil(data_gb),
        disk_while_running=single_run and s.data_gb is None,
        egress_gb_per_month=s.egress_gb_per_month,
        checkpoint_min=s.checkpoint_min,
    )


def sessions_of(s: Scenario) -> float:
    """Rental sessions a project starts when billed by the hour: one per training run (a
    sweep of 50 short runs starts 50 instances), one for a service or local use (started once
    and kept running)."""
    w = s.workload
    if w.one_off():
        return max(1.0, w.runs_per_month * s.months)
    return 1.0


def download_gb(cat: Catalog, s: Scenario) -> float:
    """GB of weights a fresh instance downloads: the checkpoint as published (its exact bytes
    where the catalog knows them, else 16 bits a parameter). QLoRA quantizes that checkpoint
    on load, so it downloads the 16-bit files too."""

    def build() -> float:
        from gpuwise.advise.workload import workload_model

        m = workload_model(cat, s)[0]
        exact = m.weight_bytes_exact
        return (exact if exact else m.params_b * 1e9 * 2) / 1e9

    return cat.derived(("download_gb", s.workload.model), build)


def machines(cost: CostOption, nodes: int, own: bool, joined: bool = False) -> CostOption:
    """The cost of `nodes` identical machines; owned machines joined into one job also need a
    switch and cables, which the catalog does not price (shown unpriced, never free). Rented
    spot machines joined into one job stop together when any one is reclaimed: the job sees
    `nodes` times one machine's interruptions, each costing every machine its lost hours, so
    the rework grows with nodes² (blind w38-03: the same rework for 2 and 8 machines)."""
    if nodes == 1:
        return cost
    items = {k: v * nodes for k, v in cost.items.items()}
    details = dict(cost.details)
    if joined and "spot_rework" in items:
        items["spot_rework"] *= nodes
        restarts = details.get("interruptions", 0.0)
        details["interruptions"] = restarts * nodes
        if details.get("sessions") and "session_overhead" in items:  # each restart a session
            per_session = items["session_overhead"] / details["sessions"]
            details["sessions"] += restarts * (nodes - 1)
            items["session_overhead"] = per_session * details["sessions"]
    unpriced = (*cost.unpriced, "network") if own else cost.unpriced
    return replace(cost, items=items, unpriced=unpriced, details=details)


def price(cat: Catalog, ctx: Context, s: Scenario, c: Candidate, sized: Sized) -> Option | None:
    """Cost the candidate over the project; None when the catalog cannot build or price it."""
    option = _price_machine(cat, ctx, s, c, sized)
    if option is not None and c.nodes > 1:
        joined = joined_machines(s, sized)
        owned_fabric = c.already_owned and bool(c.owned_network_gbps_per_gpu)  # theirs already
        needs_switch = c.kind == "own" and joined and not owned_fabric
        option.cost = machines(option.cost, c.nodes, needs_switch, joined)
    return option


def _price_machine(
    cat: Catalog, ctx: Context, s: Scenario, c: Candidate, sized: Sized
) -> Option | None:
    """Cost one machine of the candidate over the time its work needs (its Schedule)."""
    sch = schedule(s, sized)
    busy, run_hours = sch.busy_hours_per_month, sch.run_hours
    try:
        if c.kind == "own" and c.system is not None and not c.already_owned:
            return _price_system(cat, ctx, c, sized, sch, s)
        if c.kind == "own":
            from gpuwise.advise.workload import plan_value

            pc_cards = int(plan_value(cat, "owned_pc_max_cards"))
            opts = replace(
                own_options(s, c, pc_cards), engine_maps_model=_maps_model(cat, sized.engine)
            )
            own = resolve_own(cat, ctx, c.gpu.id, c.cards or c.node_devices, opts)
            cost = own_cost(own.spec, busy, sch.months)
            if c.unpriced_card and not c.already_owned:  # unpriced, never free
                cost = CostOption(
                    cost.label,
                    cost.kind,
                    cost.currency,
                    cost.months,
                    {k: v for k, v in cost.items.items() if k != "cards"},
                    ("cards", *cost.unpriced),
                    cost.details,
                )
            stale = sum(p.stale for p in own.prices)
            option = Option(c, sized, cost, busy, run_hours, stale, own_spec=own.spec)
            option.platform = own.platform
            option.prices = own.prices
            option.rules.extend(
                ("server-grade-host", dict(n.params))
                for n in own.notes
                if n.key == "cost.note_server_grade"
            )
            added = not c.already_owned and (c.cards or c.count) > 1  # the owned ones run there
            if added and in_owned_pc(s, c, pc_cards):
                tdp = (c.gpu.tdp_w or 0.0) * (c.cards or c.count)
                option.risks.append(("risk.owned_psu", {"tdp_w": tdp}))
            return option
        assert c.provider and c.offer
        rent = resolve_rent(cat, ctx, f"{c.provider.id}:{c.offer.instance}:{c.billing}")
        overhead = session_overhead(cat, c.provider.id, c.provider.hosting, download_gb(cat, s))
        usage = replace(rent_usage(s, sized), session_hours=overhead.hours, sessions=sessions_of(s))
        container = overhead.kind == "container"  # a per-card platform (cost.toml)
        busy = rental_busy_hours(s, c, busy, container)  # kept running where a stop loses it
        cost = rent_cost(rent.spec, busy, sch.months, usage, sch.active_months)
        stale = sum(p.stale for p in rent.prices[:1])
        if run_hours is not None and rent.spec.billing not in COMMIT_MONTHS:
            run_hours += overhead.hours  # each run waits for its own session to start
        option = Option(c, sized, cost, busy, run_hours, stale, rent_spec=rent.spec, usage=usage)
        option.prices = rent.prices[:1]
        return option
    except UserError:
        return None


def _price_system(
    cat: Catalog, ctx: Context, c: Candidate, sized: Sized, sch: Schedule, s: Scenario
) -> Option:
    """One whole system: its price covers the host, so no host is added; unused devices idle
    (`price` multiplies it by the systems bought); power as for any owned machine."""
    assert c.system is not None
    opts = power_options(s)
    own = resolve_system(cat, ctx, c.system, 1, c.node_devices, opts, c.market)
    busy, run_hours = sch.busy_hours_per_month, sch.run_hours
    cost = as_system_cost(own_cost(own.spec, busy, sch.months), own.system_priced)
    stale = sum(p.stale for p in own.prices)
    option = Option(c, sized, cost, busy, run_hours, stale, own_spec=own.spec)
    option.platform = own.platform
    option.prices = own.prices
    option.risks.extend(
        ("risk.system_from_modules", dict(n.params))
        for n in own.notes
        if n.key == "cost.note_system_from_modules"
    )
    return option


def _maps_model(cat: Catalog, engine_id: str) -> bool:
    """Whether the engine maps the model file and sends layers to the cards (catalog engine
    `cpu_offload`: llama.cpp, Ollama), so the host's RAM need not hold the model twice."""
    engine = next((e for e in cat.extra("engine") if e.id == engine_id), None)
    return bool(engine is not None and engine.cpu_offload)


def power_options(s: Scenario) -> OwnOptions:
    """What the scenario says about an owned machine's power: where it sits, who pays the
    electricity (and at which tariff) and what it runs."""
    return OwnOptions(
        site=s.owned_site(),
        payer=s.payer(),  # a colocation site is metered at business rates (cost.resolve)
        buyer=s.entity,
        region=None if s.region.strip().lower() in ANY else s.region,
        workload=s.workload.kind,
        tariff=s.tariff,
        resale_pct=s.resale_pct,
        server_grade=server_grade_host(s),
    )


def own_options(s: Scenario, c: Candidate, pc_cards: int = 1) -> OwnOptions:
    """What the scenario says about owning: cards it already has, a host it has or has priced,
    and the machine's power (`power_options`).

    An existing PC takes up to `pc_cards` actively cooled consumer cards without a new host
    (`owns_host`; plan_assumption owned_pc_max_cards: two 24 GB-class cards fit a desktop
    case, and a freelancer's two used 3090s for his own PC were priced with a new one, blind
    w63-02); that PC runs anyway, so only the cards' power is charged (as for cards already
    owned in it). Its power supply for more than one is a stated risk (`in_owned_pc`).
    """
    base = power_options(s)
    if c.already_owned:
        idle = unused_owned_cards(s, c)
        return replace(base, owned=True, host_owned=s.owns_host, idle_cards=idle)
    host: float | None = s.host_price
    in_pc = in_owned_pc(s, c, pc_cards)
    if in_pc:
        host = 0.0
    card = 0.0 if c.unpriced_card else None
    return replace(base, card_price=card, host_price=host, host_owned=in_pc)


def in_owned_pc(s: Scenario, c: Candidate, pc_cards: int = 1) -> bool:
    """Whether bought cards go into the PC the user has (`owns_host`): actively cooled
    consumer cards, as many as its case takes beside the cards the user owns in it (at least
    one: a card may replace an owned one), in one machine."""
    consumer = c.gpu.gpu_class == "consumer" and c.gpu.cooling == "active"
    one_machine = c.nodes <= 1 and c.system is None
    room = max(1, pc_cards - sum(o.count for o in s.owns))
    return s.owns_host and consumer and one_machine and 1 <= (c.cards or c.count) <= room


MACHINE_CARDS = 8
"""Cards one owned machine is taken to hold: owned cards beyond it sit in another machine,
switched off when unused."""


def unused_owned_cards(s: Scenario, c: Candidate) -> int:
    """Owned cards of this kind left unused in the machines the job powers on: the machines
    holding the cards it uses, `MACHINE_CARDS` each."""
    owned = sum(o.count for o in s.owns if o.gpu == c.gpu.id)
    used = c.cards or c.count
    machines = -(-used // MACHINE_CARDS)
    return max(0, min(owned, machines * MACHINE_CARDS) - used)
