"""The host a bought build needs: the platform the cards go in, its parts, the PSU, its price.

Pure, like the rest of cost.resolve (which re-exports `OwnOptions`): the catalog's platforms
and parts, converted into the result currency, each dated price kept as a reference.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from gpuwise.catalog.catalog import Catalog
from gpuwise.catalog.schema import Gpu, Price
from gpuwise.catalog.schema_cost import HostPlatform
from gpuwise.catalog.schema_extra import HostPart, PsuSizing
from gpuwise.cost.channel import Buyer, card_price
from gpuwise.cost.context import Context
from gpuwise.cost.model import Note, PriceRef
from gpuwise.cost.own import pick_psu, psu_watts
from gpuwise.cost.power import Payer, assumption
from gpuwise.errors import UserError


@dataclass(frozen=True)
class OwnOptions:
    """User values that win over the catalog's (money in the result currency)."""

    card_price: float | None = None
    host_price: float | None = None
    tariff: str | None = None
    pue: str | None = None
    platform: str | None = None
    resale_pct: float | None = None
    maintenance_pct: float | None = None
    owned: bool = False
    site: str | None = None
    """Where the machine sits (owning.toml `site`): only a server room or data centre adds PUE."""
    payer: Payer | None = None
    """Who pays the electricity: a household (residential tariff) or a business (commercial)."""
    region: str | None = None
    """The region whose tariffs apply (a region id or country code); None: the currency's."""
    workload: str | None = None
    """train | serve | local: the share of TDP a busy card draws (None: training's)."""
    host_owned: bool = False
    """The host is a PC the user has and runs anyway: no host price and no host power."""
    buyer: Buyer | None = None
    """Who buys (gpuwise.cost.channel): a company pays new prices only; None: a person."""
    server_grade: bool = False
    """A company's service kept up around the clock: its host is a workstation or a server
    (ECC memory, remote management, parts rated for continuous duty), never a home desktop
    (blind w47-03: two 600 W cards for a hospital's 24/7 service in a USD 65 mid-tower)."""
    engine_maps_model: bool = False
    """The serving engine maps the model file and copies layers to the cards (llama.cpp,
    Ollama: catalog engine `cpu_offload`), so the host needs RAM the size of the VRAM, not
    twice it, whatever the workload (blind w59-03: a llama.cpp service on one 24 GB card was
    given a 64 GB, 12-core host)."""
    idle_cards: int = 0
    """Owned cards in the same powered machine the job leaves unused: they draw their idle
    power while it runs (blind w28-05: 1 of 4 owned V100s was charged as if the 3 others
    were not in the box)."""


def maps_model_file(opts: OwnOptions) -> bool:
    """Whether what runs on the machine maps the model file rather than loading it through
    host memory: local chat always does (GGUF runtimes), a service where its engine does."""
    return opts.workload == "local" or opts.engine_maps_model


def _capacity(p: HostPlatform, parts: dict[str, HostPart]) -> int:
    """Cards a platform takes: its own limit and every part's (lanes, slots, bays)."""
    limits = [p.max_gpus, *(parts[x].max_gpus or p.max_gpus for x in p.parts if x in parts)]
    return min(limits)


def _parts_by_id(cat: Catalog) -> dict[str, HostPart]:
    """Host parts by id (the last of a repeated id wins, as a dict built from the list does)."""
    return cat.derived("host_parts", lambda: {p.id: p for p in cat.extra("host_part")})


RACK_SITES = ("colocation", "datacenter")
"""Sites whose machines stand in a rack: a desktop tower (a platform for a home) is no host
there (blind w30-02: a desktop PC priced into a colocation rack)."""


MMAP_RAM_PER_VRAM = 1.0
"""System RAM a local runtime (llama.cpp, Ollama, MLX) needs per GB of VRAM it fills: it maps
the model file and copies the offloaded layers to the card without holding them in RAM
(llama.cpp PR 2529: "the loading should be lazy so the model file only needs to be iterated
over once"; issue 1964: 32 GB RAM + 24 GB VRAM run a 65B at 4 bits), against the "RAM at
least twice the VRAM" a platform's `max_gpu_memory_gb` is derived from (training and
serving engines that load through host memory)."""


def _platform(
    cat: Catalog,
    gpu: Gpu,
    count: int,
    name: str | None,
    site: str | None = None,
    maps_model: bool = False,
    server_grade: bool = False,
) -> HostPlatform:
    """The smallest platform that takes `count` cards of this form factor and cooling (a passive
    datacenter card needs a server's forced airflow) and whose RAM is sized for their VRAM
    (`max_gpu_memory_gb`), or the named one (taken as asked; its PSU is still sized by watts)."""
    platforms: Sequence[HostPlatform] = cat.extra("host_platform")
    parts = _parts_by_id(cat)
    if name:
        chosen = next((p for p in platforms if p.id == name.lower()), None)
        if chosen is None:
            ids = ", ".join(p.id for p in platforms)
            raise UserError("cost.unknown_platform", value=name, choices=ids)
        fits = [chosen]
    else:  # a host whose RAM is sized for less VRAM than the build has is passed over
        vram_gb = gpu.memory_gb * gpu.devices_per_card * count
        ram_rule = 2.0 / MMAP_RAM_PER_VRAM if maps_model else 1.0  # blind w34-05, w59-03
        fits = [
            p
            for p in sorted(platforms, key=lambda p: _capacity(p, parts))
            if p.max_gpu_memory_gb is None or vram_gb <= p.max_gpu_memory_gb * ram_rule
        ]
    if not name and (site in RACK_SITES or server_grade):
        fits = [p for p in fits if p.pue != "home"]
    for p in fits:
        takes = gpu.form_factor in p.form_factors and gpu.cooling in p.coolings
        if takes and _capacity(p, parts) >= count:
            return p
    raise UserError("cost.no_platform", gpu=gpu.id, count=count, form=gpu.form_factor)


def latest_price(prices: Sequence[Price], kind: str, prefer: str) -> Price | None:
    """Newest price of a kind, preferring the result currency on the same date."""
    cands = [p for p in prices if p.kind == kind]
    if not cands:
        return None
    return max(cands, key=lambda p: (p.date or dt.date.min, p.currency == prefer))


def _host_in_price(gpu: Gpu, ctx: Context, user: float | None, buyer: Buyer | None) -> bool:
    """Whether the card price used is a whole server's divided by its GPUs (host included)."""
    if user is not None:
        return False
    chosen = card_price(gpu, buyer, ctx.currency)
    return bool(chosen and chosen.includes_host)


@dataclass
class Host:
    """The host a build needs: its price (None: unpriced), missing kinds, parts, PSU size."""

    price: float | None
    missing: tuple[str, ...]
    parts: list[tuple[str, float]]
    psu_w: float | None


def _psu(
    cat: Catalog, ctx: Context, gpu: Gpu, count: int, notes: list[Note], prices: list[PriceRef]
) -> tuple[tuple[str, float] | None, float | None]:
    """The cheapest PSU big enough for the cards' TDP (psu_sizing), and the watts it needs;
    where no single PSU is, two of the cheapest that each carry half (a dual-PSU build, as
    4-card workstations of 450-600 W cards are built), said in a note."""
    sizing: Sequence[PsuSizing] = cat.extra("psu_sizing")
    if not gpu.tdp_w or not sizing:
        return None, None
    s = sizing[0]
    psu_w = psu_watts(s.base_system_w, gpu.tdp_w * gpu.devices_per_card, count, s.headroom_factor)
    parts = [p for p in cat.extra("host_part") if p.kind == "psu"]
    offered = [(p.id, p.watts or 0.0, ctx.money(p.price, p.currency)) for p in parts]
    units, psu_id = 1, pick_psu(round(psu_w), offered)  # PSUs are rated in whole watts
    if psu_id is None and count > 1:
        units, psu_id = DUAL_PSU, pick_psu(round(psu_w / DUAL_PSU), offered)
        if psu_id is not None:
            notes.append(Note.of("cost.note_dual_psu", watts=round(psu_w), units=units))
    if psu_id is None:
        notes.append(Note.of("cost.note_no_psu", watts=round(psu_w)))
        return None, psu_w
    part = next(p for p in parts if p.id == psu_id)
    prices.append(
        ctx.ref(f"part:{psu_id}", part.price, part.currency, "part", part.date, part.source)
    )
    return (psu_id, units * ctx.money(part.price, part.currency)), psu_w


DUAL_PSU = 2
"""Power supplies a build that no single catalog PSU can feed takes (each feeding half the
cards through its own cables; the second is started with the first by an adapter or by a
chassis made for two)."""


def _host(
    cat: Catalog,
    ctx: Context,
    gpu: Gpu,
    count: int,
    platform: HostPlatform,
    opts: OwnOptions,
    notes: list[Note],
    prices: list[PriceRef],
) -> Host:
    """Price the platform's parts; a kind it needs without a priced part stays unpriced."""
    if opts.owned:
        return Host(None, (), [], None)
    parts = _parts_by_id(cat)
    chosen: list[tuple[str, float]] = []
    covered: set[str] = set()
    for pid in platform.parts:
        part = parts[pid]
        chosen.append((pid, ctx.money(part.price, part.currency)))
        covered.add(part.kind)
        prices.append(
            ctx.ref(f"part:{pid}", part.price, part.currency, "part", part.date, part.source)
        )
    psu_w = None
    if "psu" in platform.needs:
        psu, psu_w = _psu(cat, ctx, gpu, count, notes, prices)
        if psu:
            chosen.append(psu)
            covered.add("psu")
    if opts.host_price is not None:
        return Host(opts.host_price, (), chosen, psu_w)
    missing = tuple(k for k in platform.needs if k not in covered)
    if missing:
        notes.append(Note.of("cost.note_platform", platform=platform.id))
    return Host(sum(p for _, p in chosen) if chosen else None, missing, chosen, psu_w)


def _server_host_estimate(
    cat: Catalog, host: Host, platform: HostPlatform, cards_total: float, notes: list[Note]
) -> Host:
    """A server whose barebone has no dated price: estimate the whole host from the cards.

    Epoch AI's average server-to-chip cost multiplier (1.64) puts everything but the GPUs at
    `server_host_cost_fraction_of_gpu` × the GPUs' price; the estimate replaces the parts sum,
    and is never less than it: a server holds at least the parts the catalog prices for it
    (its memory and disk). The ratio was read off new accelerators; four used Tesla P100s at
    $288 got a $184 server that holds and cools them (blind w64-03).
    """
    if not host.missing or "server_barebone" not in platform.needs or cards_total <= 0:
        return host
    fraction = assumption(cat, "server_host_cost_fraction_of_gpu").value
    notes[:] = [n for n in notes if n.key != "cost.note_platform"]  # priced now, not left out
    parts = sum(p for _, p in host.parts)
    if parts > fraction * cards_total:  # a lower bound, said: chassis, board and CPUs more
        notes.append(Note.of("cost.note_host_parts_floor", platform=platform.id, parts=parts))
        return Host(parts, (), host.parts, host.psu_w)
    notes.append(Note.of("cost.note_host_estimated", platform=platform.id, fraction=fraction))
    return Host(fraction * cards_total, (), [], host.psu_w)


def _note_server_grade(
    cat: Catalog,
    gpu: Gpu,
    count: int,
    platform: HostPlatform,
    opts: OwnOptions,
    notes: list[Note],
) -> None:
    """Say so where the continuous-duty rule, not the cards, chose a bigger host."""
    try:
        plain = _platform(cat, gpu, count, None, opts.site, maps_model_file(opts))
    except UserError:
        return
    if plain.id != platform.id:
        notes.append(Note.of("cost.note_server_grade", platform=platform.id, plain=plain.id))


WHOLE_SYSTEM = "whole-system"
"""The platform of a machine sold whole (an Apple Mac): its price already includes the host."""


def build_host(
    cat: Catalog,
    ctx: Context,
    gpu: Gpu,
    count: int,
    card_price: float,
    opts: OwnOptions,
    notes: list[Note],
    prices: list[PriceRef],
) -> tuple[str, HostPlatform | None, Host]:
    """The platform the cards go in and the host's price (a Mac is a whole system)."""
    if gpu.whole_system:
        return WHOLE_SYSTEM, None, Host(0.0, (), [], None)
    platform = _platform(
        cat, gpu, count, opts.platform, opts.site, maps_model_file(opts), opts.server_grade
    )
    if opts.server_grade and not opts.platform and not opts.owned:
        _note_server_grade(cat, gpu, count, platform, opts, notes)
    in_price = _host_in_price(gpu, ctx, opts.card_price, opts.buyer)
    if opts.host_price is None and not opts.owned and in_price:
        notes.append(Note.of("cost.note_host_in_price", gpu=gpu.id))
        return platform.id, platform, Host(0.0, (), [], None)
    host = _host(cat, ctx, gpu, count, platform, opts, notes, prices)
    if opts.host_price is None and not opts.owned:
        host = _server_host_estimate(cat, host, platform, card_price * count, notes)
    return platform.id, platform, host
