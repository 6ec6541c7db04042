"""Every hardware option a scenario could use: what can be bought and cloud offers by billing.

Only purchasable units are bought: a PCIe card (1/2/4/8 in a sized host), or a whole system from
the catalog (a server or workstation SKU; SXM, OAM and module parts come only this way, so a job
that needs 2 GPUs of an 8-GPU-only part buys the server and leaves 6 idle). Options the scenario
or the market rules out are kept aside with the rule that dropped them, so the report can say
why they are missing: data may not leave, domestic hardware only, the region, chips that are
only rented (TPU, Trainium), cards a buyer in China cannot buy new under export rules, parts
sold only in systems the catalog does not list or not sold in the buyer's market, cards that
cannot train with the job's framework, and spot capacity for a job that cannot take
interruptions.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from gpuwise.advise.duty import racked_service
from gpuwise.advise.regions import offer_in_region, priced_elsewhere, unrecorded
from gpuwise.advise.scenario import Scenario
from gpuwise.catalog import Catalog
from gpuwise.catalog.schema import Gpu
from gpuwise.catalog.schema_advise import Region
from gpuwise.catalog.schema_cloud import Offer, Provider
from gpuwise.catalog.schema_systems import Market, PurchasableSystem
from gpuwise.catalog.systems import (
    market_of,
    market_prices,
    sold_as_system,
    sold_in,
    systems_for,
    training_refusal,
)
from gpuwise.cost.channel import buys_used, card_price

CARD_COUNTS = (1, 2, 4, 8)
DOMESTIC_VENDORS = (
    "huawei",
    "cambricon",
    "hygon",
    "moorethreads",
    "biren",
    "iluvatar",
    "metax",
    "kunlunxin",
    "enflame",
)
"""Vendors that satisfy a 国产化 requirement: Chinese chip makers (Huawei Ascend, Cambricon,
Hygon DCU, Moore Threads, Biren, Iluvatar CoreX, MetaX, Kunlunxin, Enflame). Their cards whose
software stack the catalog does not model get "unknown" engine verdicts, and cards without a
price or a sourced speed are listed as not checked, never as an answer."""


@dataclass(frozen=True)
class Candidate:
    """One way to get the hardware: own `cards` × `gpu`, own `systems` × `system`, or rent
    `offer` in `billing` mode.

    `count` is the number of devices the job runs on (a multi-chip card such as the Atlas
    300I Duo holds two); `cards` is what is bought or rented. A system may hold more devices
    than the job uses (`idle_devices`): they are bought all the same.
    """

    kind: str
    gpu: Gpu
    count: int
    offer: Offer | None = None
    provider: Provider | None = None
    billing: str | None = None
    already_owned: bool = False
    unpriced_card: bool = False
    cards: int = 0
    nodes: int = 1
    """Machines of `cards` cards (own), of the system (own, `system`) or of the offer (rent)
    joined for one job: `count` is the devices of all of them."""
    system: PurchasableSystem | None = None
    """The server or workstation SKU bought whole (its `cards` are the system's cards)."""
    market: Market = "global"
    owned_kept: tuple[tuple[str, int], ...] = ()
    """(gpu id, cards) the user owns and keeps in the machine beside the `cards` bought: one
    model split by layer over unlike cards (advise/owned_extend.py); empty otherwise."""
    owned_kept_names: tuple[str, ...] = ()
    """The display names of `owned_kept`'s cards, in its order (a sentence names them: blind
    w64-03 read "1× rtx-4090 + 1× NVIDIA GeForce RTX 3090")."""
    offload_fraction: float = 0.0
    """Share of the weights run from system RAM on the CPU beside the owned cards."""
    owned_network_gbps_per_gpu: float | None = None
    """The network the user states between the machines of their own cards (`owns`)."""
    beside_owned: tuple[tuple[str, int], ...] = ()
    """(gpu id, cards) the user owns and keeps serving a share of the requests in machines of
    their own, beside what this candidate adds (advise/owned_beside.py); empty otherwise."""

    @property
    def node_devices(self) -> int:
        """Devices in one machine."""
        return self.count // self.nodes

    @property
    def systems(self) -> int:
        """Whole systems bought (0 for cards in a host and for rentals)."""
        return self.nodes if self.system is not None else 0

    @property
    def idle_devices(self) -> int:
        """Devices bought in the system(s) that this job leaves unused."""
        if self.system is None:
            return 0
        return self.nodes * self.system.gpus * self.gpu.devices_per_card - self.count

    @property
    def label(self) -> str:
        """Human-readable id: 'own:rtx-4090×2', 'own:hgx-h20-8gpu×1[2/8]' (one system, 2 of
        its 8 devices used) or 'aliyun:ecs.gn7i:spot'."""
        if self.beside_owned:
            kept = "+".join(f"{g}×{n}" for g, n in self.beside_owned)
            return f"kept:{kept}|{replace(self, beside_owned=()).label}"
        machines = f"×{self.nodes}nodes" if self.nodes > 1 else ""
        if self.owned_kept:
            kept = "+".join(f"{g}×{n}" for g, n in self.owned_kept)
            return f"own:{kept}+{self.gpu.id}×{self.cards}"
        if self.offload_fraction:
            return f"own:{self.gpu.id}×{self.cards or self.count}+cpu"
        if self.offer and self.provider:
            return f"{self.provider.id}:{self.offer.instance}:{self.billing}{machines}"
        if self.system is not None:
            used = f"[{self.count}/{self.count + self.idle_devices}]" if self.idle_devices else ""
            return f"own:{self.system.id}×{self.nodes}{used}"
        return f"own:{self.gpu.id}×{self.cards or self.count}{machines}"


@dataclass
class CandidateSet:
    """Candidates to evaluate and the rule ids that removed the others."""

    items: list[Candidate] = field(default_factory=list)
    dropped: dict[str, int] = field(default_factory=dict)
    examples: dict[str, list[str]] = field(default_factory=dict)
    example_candidates: dict[str, list[Candidate]] = field(default_factory=dict)
    """The configurations behind a rule's examples, so a note names them in words (display
    names, devices used of a system) in the reader's language, not by their ids."""

    first_rule: dict[str, str] = field(default_factory=dict)
    """The first rule that removed each named card or system (what `consider:` reports)."""

    def drop(self, rule: str, example: str = "", candidate: Candidate | None = None) -> None:
        """Count an option removed by `rule` (keeping a few names to show)."""
        self.dropped[rule] = self.dropped.get(rule, 0) + 1
        if example:
            self.first_rule.setdefault(example, rule)
        names = self.examples.setdefault(rule, [])
        if example and example not in names and len(names) < 4:
            names.append(example)
            if candidate is not None:
                self.example_candidates.setdefault(rule, []).append(candidate)


def _buyable(s: Scenario, gpu: Gpu, buyer: str | None, out: CandidateSet) -> bool:
    """Whether the scenario may buy this card new (the rule that stops it is recorded)."""
    if s.domestic_only and gpu.vendor not in DOMESTIC_VENDORS:
        out.drop("domestic-only")
        return False
    if gpu.rent_only:
        out.drop("rent-only-hardware", gpu.id)
        return False
    if buyer and buyer in gpu.export_restricted_in:
        out.drop("export-restricted", gpu.id)
        return False
    if not sold_in(gpu, market_of(buyer)):
        out.drop("not-sold-here", gpu.id)
        return False
    if not_for_racks(s, gpu, buyer):
        out.drop("consumer-card-not-racked", gpu.id)
        return False
    return True


def not_for_racks(s: Scenario, gpu: Gpu, buyer: str | None) -> bool:
    """A consumer card (open-air cooler) for an organisation's service racked in a server
    room, where its market sells no blower server edition of it, or a consumer computer (a
    Mac, a mini PC: no ECC, no remote management, no rack form) for it (duty.racked_service)."""
    if gpu.gpu_class != "consumer":
        return False
    return racked_service(s) and market_of(buyer) not in gpu.server_edition_in


def _can_train(cat: Catalog, s: Scenario, gpu: Gpu, out: CandidateSet) -> bool:
    """A training job is never offered a card that cannot train with its frameworks."""
    if s.workload.kind != "train":
        return True
    if training_refusal(cat, gpu.id, s.feature_names()) is None:
        return True
    out.drop("cannot-train", gpu.id)
    return False


def _own_cards(s: Scenario, gpu: Gpu, out: CandidateSet, min_node: int) -> None:
    """1, 2, 4, 8 cards of a part bought singly (a PCIe card in a sized host, an Apple Mac),
    and N full hosts of them where the job may scale out."""
    most = 1 if gpu.whole_system else min(gpu.max_per_host, s.max_gpus)
    # a company pays new prices only: a card sold only second-hand is unpriced for it
    unpriced = card_price(gpu, s.entity, "") is None
    if unpriced and gpu.production_ended is not None and not buys_used(s.entity):
        out.drop("no-longer-made", gpu.id)  # not sold new any more: nothing to quote
        return
    for cards in CARD_COUNTS:
        devices = cards * gpu.devices_per_card
        if cards > most or devices > s.max_gpus:
            break
        out.items.append(Candidate("own", gpu, devices, unpriced_card=unpriced, cards=cards))
    if not gpu.whole_system and most == gpu.max_per_host:
        full = most * gpu.devices_per_card
        for nodes in machine_counts(full, s, min_node):
            out.items.append(
                Candidate(
                    "own",
                    gpu,
                    full * nodes,
                    unpriced_card=unpriced,
                    cards=most,
                    nodes=nodes,
                )
            )


def system_uses(per_system: int, s: Scenario, min_node: int) -> list[tuple[int, int]]:
    """(devices used, systems bought) for systems of `per_system` devices: one system at the
    planner's counts below its size and at its size (a job limited to fewer devices still buys
    the whole system and leaves the rest idle), then N whole systems where the job may scale out
    (the same rule as N hosts of cards)."""
    counts = [c for c in CARD_COUNTS if c < per_system and c <= s.max_gpus]
    uses = [(c, 1) for c in counts]
    if per_system <= s.max_gpus or not counts:
        uses.append((per_system, 1))
    return uses + [(per_system * n, n) for n in machine_counts(per_system, s, min_node)]


def _own_systems(
    s: Scenario,
    gpu: Gpu,
    systems: list[PurchasableSystem],
    market: Market,
    out: CandidateSet,
    min_node: int,
) -> None:
    """Whole systems carrying the part: one system at every device count the job may use of
    it (1, 2, 4 … up to the system's size; the rest idle), and N systems where it scales out."""
    for system in systems:
        if not sold_in(system, market):
            out.drop("not-sold-here", system.id)
            continue
        per = system.gpus * gpu.devices_per_card
        unpriced = not market_prices(system, market)
        for devices, nodes in system_uses(per, s, min_node):
            out.items.append(
                Candidate(
                    "own",
                    gpu,
                    devices,
                    unpriced_card=unpriced,
                    cards=system.gpus,
                    nodes=nodes,
                    system=system,
                    market=market,
                )
            )


def _own(cat: Catalog, s: Scenario, buyer: str | None, out: CandidateSet, min_node: int) -> None:
    market = market_of(buyer)
    if s.acquire == "rent":
        out.drop("acquire-rent-only")  # nothing bought: only what the user owns is kept
    for gpu in cat.gpus if s.acquire != "rent" else ():
        if not _buyable(s, gpu, buyer, out) or not _can_train(cat, s, gpu, out):
            continue
        systems = systems_for(cat, gpu.id)
        if not sold_as_system(gpu):
            _own_cards(s, gpu, out, min_node)
        elif not systems:
            out.drop("no-system-listed", gpu.id)
        _own_systems(s, gpu, systems, market, out, min_node)
    for owned in s.owns:  # some of the cards one owns may do the job, for less power
        gpu = cat.gpu(owned.gpu)
        for cards in sorted({n for n in CARD_COUNTS if n < owned.count} | {owned.count}):
            c = _owned_candidate(gpu, cards, owned.per_machine)
            out.items.append(replace(c, owned_network_gbps_per_gpu=owned.network_gbps_per_gpu))


def _owned_candidate(gpu: Gpu, cards: int, per_machine: int | None = None) -> Candidate:
    """`cards` of the user's own: one machine where a host takes them, else the machines they
    sit in (`per_machine` as the user says, else `max_per_host`), joined for the job (blind
    w46-02: two owned 8-GPU servers were only ever offered as one, and a tight deadline
    rented the second)."""
    devices = cards * gpu.devices_per_card
    per_host = per_machine or gpu.max_per_host
    if per_host and cards > per_host and cards % per_host == 0:
        nodes = cards // per_host
        return Candidate("own", gpu, devices, already_owned=True, cards=per_host, nodes=nodes)
    return Candidate("own", gpu, devices, already_owned=True, cards=cards)


def _offer_ok(
    s: Scenario,
    region: Region | None,
    provider: Provider,
    offer: Offer,
    gpu: Gpu,
    out: CandidateSet,
) -> bool:
    if not s.data_may_leave:
        out.drop("data-stays-on-premises")
        return False
    if s.providers and provider.id not in s.providers:  # ids: plan.with_provider_ids
        out.drop("provider-not-listed", provider.id)
        return False
    if s.domestic_only and gpu.vendor not in DOMESTIC_VENDORS:
        out.drop("domestic-only")
        return False
    if region is not None and not offer_in_region(region, provider, offer):
        out.drop("region", provider.id)
        return False
    if region is not None and unrecorded(provider, offer) and s.keeps_data_in_region():
        out.drop("region-unrecorded", provider.id)  # may run anywhere: no place for residency
        return False
    if "hipaa" in s.compliance and provider.hipaa_baa is not True:
        out.drop("no-hipaa-baa", provider.id)
        return False
    return offer_devices(offer, gpu) <= s.max_gpus


def machine_counts(
    node_devices: int, s: Scenario, min_node_devices: int, rented: bool = False
) -> list[int]:
    """Machines of `node_devices` joined for one job while it stays within the scenario's
    `max_gpus`; never for local chat. Training joins 2, 3, 4 … 8, then 12, 16 … of them (one
    job over all; blind w45-05: a run 9% short of its deadline on 4 servers had only 8 beside
    it, where 5 do), only for machines big enough to be cluster nodes (catalog plan_assumption
    `scale_out_min_node_gpus`). A service is scaled out only to meet a throughput target, as
    replicas behind a load balancer (advise.sizing), which talk to nobody: so rented machines
    of any size, a single-card instance included (owned ones only from cluster-node size: a
    rack of small PCs is not what a company buys to serve), small ones in steps of about 1.5
    (2, 3, 4, 6, 8, 12 …) so the plan does not rent nearly twice what the target needs,
    cluster-size machines doubling (each is a large step of money already, and each count is
    sized with its spanning layouts). Big machines may also join into one replica that spans
    them (a model one machine cannot hold), which sizing tries itself."""
    w = s.workload
    if w.kind == "local" or node_devices > s.max_gpus:
        return []
    if w.kind == "serve":
        # a service scales out for a target; a one-off batch for its deadline: its inputs are
        # independent, so copies on separate machines each take from the queue (blind w55-05:
        # a 10-day batch on 16 allowed GPUs was held to one 8-GPU machine and found none)
        wants_more = w.target_tokens_per_s or (w.batch_requests() and s.deadline_days)
        if not wants_more or (node_devices < min_node_devices and not rented):
            return []
        most = s.max_gpus // node_devices
        if node_devices >= min_node_devices:  # big machines: doubling, as clusters grow
            return [n for n in _replica_steps(most) if n >= 2 and n & (n - 1) == 0]
        return [n for n in _replica_steps(most) if n >= 2]
    if node_devices < min_node_devices:
        return []
    most = s.max_gpus // node_devices  # every count to 8 machines, then steps of about 1.5
    return sorted({*range(2, min(most, 8) + 1), *(n for n in _replica_steps(most) if n >= 2)})


def _replica_steps(most: int) -> list[int]:
    """1, 2, 3, 4, 6, 8, 12, 16 … up to `most`: powers of two and their halfway points."""
    out: list[int] = []
    p = 1
    while p <= most:
        for n in (p, p + p // 2):
            if n <= most and (not out or n > out[-1]):
                out.append(n)
        p *= 2
    return out


def offer_devices(offer: Offer, gpu: Gpu) -> int:
    """Devices an offer gives when rented as sold (whole nodes where it is sold per node)."""
    gpus = offer.node_gpus or offer.gpu_count
    return max(1, int(gpus)) * gpu.devices_per_card


def _rent(
    cat: Catalog, s: Scenario, region: Region | None, out: CandidateSet, min_node: int
) -> None:
    spot_ok = s.spot_allowed()
    gpus = {g.id: g for g in cat.gpus}
    trains = {g.id: _can_train(cat, s, g, CandidateSet()) for g in cat.gpus}
    eligible = []
    for offer in cat.offers:
        provider = cat.providers.get(offer.provider)
        if provider is None or offer.gpu_count < 1:
            continue
        gpu = gpus[offer.gpu]
        if not _offer_ok(s, region, provider, offer, gpu, out):
            continue
        if trains[gpu.id]:
            eligible.append((offer, provider, gpu))
        else:
            out.drop("cannot-train", gpu.id)
    for (offer, provider, gpu), billings in _cheapest_per_configuration(eligible, out, region):
        for price in offer.prices:
            if price.billing not in billings:
                continue
            if price.billing == "spot" and not spot_ok:
                out.drop("spot-not-for-this-job", f"{provider.id}:{offer.instance}")
                continue
            count = offer_devices(offer, gpu)
            out.items.append(
                Candidate("rent", gpu, count, offer, provider, price.billing, cards=count)
            )
            for nodes in machine_counts(count, s, min_node, rented=True):
                out.items.append(
                    Candidate(
                        "rent",
                        gpu,
                        count * nodes,
                        offer,
                        provider,
                        price.billing,
                        cards=count,
                        nodes=nodes,
                    )
                )


Eligible = tuple[Offer, Provider, Gpu]


def _cheapest_per_configuration(
    offers: list[Eligible], out: CandidateSet, region: Region | None
) -> list[tuple[Eligible, frozenset[str]]]:
    """The offers worth pricing, each with the billing modes in which it is: when a provider
    sells the same configuration (GPU, count, node, vCPU, RAM) in several places of the
    scenario's region, only the cheapest in a billing mode can win, so the others are dropped
    as "same-offer-dearer" before the search (a refreshed price feed lists one instance in
    dozens of regions; pricing each would make the plan slow without changing its answer). A
    price quoted for the region itself wins over a cheaper one quoted elsewhere
    (regions.priced_elsewhere): that is what the user pays there (blind w60-04: AWS inf2 in
    Mumbai priced at us-east-1's rate, its Mumbai row dropped). Each mode is won on its own:
    a generic row that alone lists spot keeps its spot price, not its on-demand one beside
    the region's own (blind w61-04: g5.xlarge in Jakarta at us-east-1's on-demand rate)."""
    best: dict[tuple[object, ...], tuple[tuple[bool, float], int, str]] = {}
    for i, (offer, provider, _) in enumerate(offers):
        config = (offer.provider, offer.gpu, offer.gpu_count, offer.node_gpus, offer.vcpu)
        elsewhere = region is not None and priced_elsewhere(region, provider, offer)
        for p in offer.prices:
            key = (*config, offer.ram_gb, p.billing, p.currency)  # amounts compare per currency
            rank = (elsewhere, p.per_hour)
            if key not in best or rank < best[key][0]:
                best[key] = (rank, i, p.billing)
    won: dict[int, set[str]] = {}
    for _, i, billing in best.values():
        won.setdefault(i, set()).add(billing)
    for i, (offer, _, _) in enumerate(offers):
        if i not in won:
            out.drop("same-offer-dearer", f"{offer.provider}:{offer.instance}")
    return [(e, frozenset(won[i])) for i, e in enumerate(offers) if i in won]


def candidates(cat: Catalog, s: Scenario, region: Region | None, buyer: str | None) -> CandidateSet:
    """All own and rent options the scenario allows."""
    out = CandidateSet()
    values = {a.id: a.value for a in cat.extra("plan_assumption")}
    min_node = int(values["scale_out_min_node_gpus"])
    _own(cat, s, buyer, out, min_node)
    if s.acquire == "buy":
        out.drop("acquire-buy-only")  # capital-only: no rental is counted
    else:
        _rent(cat, s, region, out, min_node)
    return out
