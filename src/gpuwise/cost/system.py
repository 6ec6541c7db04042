"""Owning whole systems: a server or workstation SKU bought as one unit.

An SXM/OAM/module part is sold only inside a system whose price already includes the host
(CPUs, memory, baseboard, network), so no host is added. The spec is the plain owning spec of
gpuwise.cost.own with the system's price spread over its cards; cards a job leaves unused
still sit in the machine and draw their idle power all the time:

    draw per card while busy = (used x load + unused x idle) / cards

so that cards x that = the machine's real GPU draw (cost.power: a busy card draws its workload's
share of TDP). The rest of the machine draws what the catalog's host platform of that kind draws
(an HGX/OAM server, a PCIe server, a workstation), sized to its GPUs; PUE and tariff follow
where the machine sits and who pays, as for cards in a host.
Resale applies the GPU's used-price curve to the system price, from the price's date.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, replace

from gpuwise.catalog.catalog import Catalog
from gpuwise.catalog.schema import Gpu
from gpuwise.catalog.schema_cost import HostPlatform
from gpuwise.catalog.schema_systems import Market, PurchasableSystem
from gpuwise.catalog.systems import (
    find_system,
    market_of,
    market_prices,
    sold_as_system,
    sold_in,
    systems_for,
)
from gpuwise.cost.market import hardware_index, index_note
from gpuwise.cost.model import CostOption, Note, PriceRef
from gpuwise.cost.own import OwnSpec
from gpuwise.cost.power import (
    COLOCATION_SITE,
    assumption,
    busy_fraction,
    card_draw,
    colocation_of,
    host_draw,
    site_pue,
    tariff_price,
)
from gpuwise.cost.resale import resale_curve
from gpuwise.cost.resolve import (
    Context,
    OwnOptions,
    ResolvedOwn,
    _check_own_options,
    _maintenance,
    _months_between,
    resale_notes,
    resolve_own,
    warranty_months,
    with_retrieved,
)
from gpuwise.errors import UserError

HOST_PLATFORM = {"workstation": "workstation", "server": "server-hgx", "server-pcie": "server-pcie"}
"""The catalog host platform whose draw and PUE stand for the rest of a system of this form."""


def _platform(cat: Catalog, system: PurchasableSystem, gpu: Gpu) -> HostPlatform | None:
    key = "server-pcie" if system.form == "server" and gpu.form_factor == "pcie" else system.form
    wanted = HOST_PLATFORM[key]
    return next((p for p in cat.extra("host_platform") if p.id == wanted), None)


def system_price(
    system: PurchasableSystem, ctx: Context, market: Market, cat: Catalog | None = None
) -> tuple[float, PriceRef] | None:
    """The newest price for the buyer's market, in the result currency; None: unpriced.

    Where the catalog (given `cat`) dates a price of the system's modules alone after the
    system's own newest price, the system is priced from it: the modules plus the rest of the
    server at Epoch AI's server-to-chip share (cost assumption
    server_host_cost_fraction_of_gpu), the newer of two market readings (blind w58-05, w60-01,
    w62-05: the Atlas 800T A2 at Baidu's November 2023 bulk order, CNY 2.25M, where the 910B
    sold for about CNY 120k a chip in February 2024: 8 x 120k x 1.64 = CNY 1.57M). Only a fall
    is read so: a newer module reading that implies a dearer server is no reason to drop a dated
    quote for the whole server (the HGX H20's 2025 channel price is for the 8-GPU baseboard,
    whose NVSwitches Epoch's share would count again, and a peak "at one point")."""
    prices = market_prices(system, market)
    if not prices:
        return None
    chosen = max(prices, key=lambda p: (p.date or dt.date.min, p.currency == ctx.currency))
    newer = _newer_module_price(cat, ctx, system, market, chosen.date) if cat else None
    if newer is not None and newer[0] < ctx.money(chosen.amount, chosen.currency):
        return newer[0], newer[1]
    ref = ctx.ref(
        f"system:{chosen.kind}",
        chosen.amount,
        chosen.currency,
        "system",
        chosen.date,
        chosen.source,
    )
    return ctx.money(chosen.amount, chosen.currency), ref


MARKET_CURRENCY = {"cn": "CNY"}
"""The currency a market's module prices are read in (any other market: USD or EUR)."""


def _newer_module_price(
    cat: Catalog, ctx: Context, system: PurchasableSystem, market: Market, since: dt.date | None
) -> tuple[float, PriceRef] | None:
    """The system priced from its modules' newest own price (no host share in it) where that
    price is dated after `since`; None where there is none."""
    gpu = cat.gpu_by_id(system.gpu)
    wanted = MARKET_CURRENCY.get(market)
    found = [
        p
        for p in gpu.prices
        if p.kind in ("street", "launch")
        and not p.includes_host
        and p.date is not None
        and (since is None or p.date > since)
        and (p.currency == wanted if wanted else p.currency != "CNY")
    ]
    if not found:
        return None
    module = max(found, key=lambda p: p.date or dt.date.min)
    share = assumption(cat, "server_host_cost_fraction_of_gpu").value
    amount = module.amount * system.gpus * (1 + share)
    ref = ctx.ref("system:modules", amount, module.currency, "system", module.date, module.source)
    return ctx.money(amount, module.currency), ref


def _draw(
    cat: Catalog, gpu: Gpu, used_share: float, workload: str | None, notes: list[Note]
) -> tuple[float | None, float | None]:
    """Per-card draw while the job runs (used cards at the workload's share of TDP, the rest
    idle) and at idle."""
    load_w, idle_w = card_draw(cat, gpu, busy_fraction(cat, workload), notes)
    if load_w is None or idle_w is None:
        return None, None
    return used_share * load_w + (1 - used_share) * idle_w, idle_w


@dataclass(frozen=True)
class _Price:
    """The price per card a system's bill spreads, the dated price it rests on and its date."""

    per_card: float
    ref: PriceRef | None
    priced: bool


def _per_card(
    cat: Catalog,
    system: PurchasableSystem,
    ctx: Context,
    market: Market,
    opts: OwnOptions,
    notes: list[Note],
) -> _Price:
    """The user's per-card price, else the market's system price over its cards, else 0 and
    unpriced (said in a note)."""
    if opts.card_price is not None:
        notes.append(Note.of("cost.note_system_user_price", system=system.id))
        return _Price(opts.card_price, None, True)
    priced = system_price(system, ctx, market, cat)
    if priced is None:
        notes.append(Note.of("cost.note_system_unpriced", system=system.id, market=market))
        return _Price(0.0, None, False)
    if priced[1].label == "system:modules":
        share = assumption(cat, "server_host_cost_fraction_of_gpu").value
        notes.append(Note.of("cost.note_system_from_modules", system=system.id, share=share))
    return _Price(priced[0] / system.gpus, priced[1], True)


def _host_draw(
    cat: Catalog, system: PurchasableSystem, gpu: Gpu, systems: int, opts: OwnOptions
) -> tuple[float, float]:
    """(busy draw, idle draw) of the rest of the machines: the catalog platform of the system's
    kind stands for its CPUs, fans, switches and NICs, sized to the system's GPUs."""
    platform = _platform(cat, system, gpu)
    if platform is None:
        return 0.0, 0.0
    busy, idle = host_draw(cat, platform, gpu, system.gpus, busy_fraction(cat, opts.workload))
    return systems * busy, systems * idle


def _use_notes(system: PurchasableSystem, gpu: Gpu, systems: int, used: int) -> list[Note]:
    cards = systems * system.gpus
    devices = cards * gpu.devices_per_card
    notes = [Note.of("cost.note_system", system=system.id, count=systems, cards=cards, gpu=gpu.id)]
    if used < devices:
        idle = devices - used
        params = {"system": system.id, "used": used, "total": devices, "idle": idle}
        notes.append(Note.of("cost.note_system_idle", **params))
    return notes


def resolve_system(
    cat: Catalog,
    ctx: Context,
    system: PurchasableSystem,
    systems: int = 1,
    used_devices: int | None = None,
    opts: OwnOptions | None = None,
    market: Market = "global",
) -> ResolvedOwn:
    """Everything needed to price owning `systems` of this SKU, `used_devices` of them busy."""
    opts = opts or OwnOptions()
    _check_own_options(opts)
    if systems < 1:
        raise UserError("cost.bad_count", value=systems)
    gpu = cat.gpu_by_id(system.gpu)
    devices = systems * system.gpus * gpu.devices_per_card
    used = devices if used_devices is None else max(1, min(used_devices, devices))
    notes = _use_notes(system, gpu, systems, used)
    price = _per_card(cat, system, ctx, market, opts, notes)
    index = hardware_index(cat, opts.region, ctx.currency)
    if index is not None and opts.card_price is None and price.priced:
        price = replace(price, per_card=price.per_card * index.factor)  # imported
        notes.append(index_note(index))
    prices = [price.ref] if price.ref else []
    gpu_load_w, gpu_idle_w = _draw(cat, gpu, used / devices, opts.workload, notes)
    host_load, host_idle = _host_draw(cat, system, gpu, systems, opts)
    pue, site = site_pue(cat, opts.site, opts.pue)
    payer = "business" if site == COLOCATION_SITE else opts.payer  # the data centre meters it
    tariff, tariff_ref = tariff_price(cat, ctx, opts.tariff, payer, opts.region)
    if tariff_ref:
        prices.append(tariff_ref)
    curve = resale_curve(cat, gpu)
    if curve is not None:
        notes += resale_notes(curve, gpu)
    bought = (price.ref.date if price.ref else None) or dt.date(gpu.release_year, 1, 1)
    peak_w = gpu.tdp_w * devices + host_load if gpu.tdp_w else None  # unknown: rent unpriced
    rent = colocation_of(cat, ctx, site, opts.region, peak_w, prices)
    warranty = warranty_months(cat, "system", opts.region, ctx.currency)
    notes += [Note.of("cost.note_warranty", gpu=system.id, years=warranty / 12)] if warranty else []
    spec = OwnSpec(
        label=f"own:{system.id}x{systems}",
        gpu_id=gpu.id,
        count=systems * system.gpus,
        currency=ctx.currency,
        card_price=price.per_card,
        host_price=0.0,
        gpu_load_w=gpu_load_w,
        gpu_idle_w=gpu_idle_w,
        host_load_w=host_load,
        host_idle_w=host_idle,
        pue=pue,
        tariff_per_kwh=tariff,
        maintenance_annual_fraction=_maintenance(cat, opts),
        resale_base_per_card=price.per_card,
        resale_age_months=_months_between(bought, ctx.today),
        resale_curve=curve.knots if curve else (),
        resale_fraction_override=None if opts.resale_pct is None else opts.resale_pct / 100,
        resale_tail_annual=curve.tail_annual_decline if curve else 0.0,
        colocation_per_month=rent.per_month,
        power_in_rent=rent.power_included,
        colocation_unpriced=rent.unpriced,
        warranty_months=warranty,
        off_when_idle=opts.workload == "local",
    )
    refs = with_retrieved(cat, prices)
    resolved = ResolvedOwn(spec, system.id, None, (), refs, tuple(notes), site)
    return replace(resolved, system=system.id, system_priced=price.priced, systems=systems)


def as_system_cost(cost: CostOption, priced: bool) -> CostOption:
    """Cards and host folded into one `system` item (the price covers both); an unpriced
    system leaves the item out and names it unpriced, so the total is a floor."""
    items = {k: v for k, v in cost.items.items() if k not in ("cards", "host")}
    unpriced = tuple(u for u in cost.unpriced if u != "host")
    if priced:
        items = {"system": cost.items.get("cards", 0.0) + cost.items.get("host", 0.0), **items}
    else:
        unpriced = ("system", *unpriced)
    return replace(cost, items=items, unpriced=unpriced)


def pick_system(
    cat: Catalog, ctx: Context, gpu: Gpu, cards: int, market: Market
) -> tuple[PurchasableSystem, int]:
    """The system to buy `cards` of a system-only part: the cheapest priced way to hold them
    (whole systems), else the smallest system sold in the market; none listed is an error that
    says so (a part no one sells singly is never priced as a card)."""
    listed = [s for s in systems_for(cat, gpu.id) if sold_in(s, market)]
    if not listed:
        others = ", ".join(s.id for s in systems_for(cat, gpu.id)) or "—"
        form = gpu.form_factor.upper()
        raise UserError("cost.sold_as_system_none", gpu=gpu.id, form=form, others=others)

    def cost_of(s: PurchasableSystem) -> tuple[bool, float, int]:
        n = math.ceil(cards / s.gpus)
        p = system_price(s, ctx, market, cat)
        return (p is None, (p[0] * n) if p else 0.0, s.gpus)

    best = min(listed, key=cost_of)
    return best, math.ceil(cards / best.gpus)


def resolve_purchase(
    cat: Catalog, ctx: Context, name: str, count: int, opts: OwnOptions | None = None
) -> ResolvedOwn:
    """What `gpuwise cost --own NAME --count N` prices.

    A named system: N of them. A card bought singly (PCIe, an Apple Mac), cards the user
    already owns, or a part the user prices with --card-price: N cards as before. An SXM, OAM or
    module part: the system that holds N of them (whole systems; the rest of its cards idle),
    said in a note — or an error naming where systems are listed when none is sold here.
    """
    opts = opts or OwnOptions()
    market = market_of("cn" if ctx.currency == "CNY" else None)
    system = find_system(cat, name)
    if system is not None:
        if opts.owned:
            return resolve_own(cat, ctx, system.gpu, count * system.gpus, opts)
        return resolve_system(cat, ctx, system, count, None, opts, market)
    gpu = cat.gpu(name)
    if opts.owned or opts.card_price is not None or not sold_as_system(gpu):
        return resolve_own(cat, ctx, gpu.id, count, opts)
    if count < 1:
        raise UserError("cost.bad_count", value=count)
    chosen, n = pick_system(cat, ctx, gpu, count, market)
    resolved = resolve_system(cat, ctx, chosen, n, count * gpu.devices_per_card, opts, market)
    others = [s.id for s in systems_for(cat, gpu.id) if s.id != chosen.id]
    note = Note.of(
        "cost.note_sold_as_system",
        gpu=gpu.id,
        form=gpu.form_factor.upper(),
        system=chosen.id,
        count=n,
        cards=n * chosen.gpus,
        others=", ".join(others) or "—",
    )
    return replace(resolved, notes=(note, *resolved.notes))
