"""Catalog entries → the plain specs the cost functions take (currency converted, dated).

Pure: the catalog object and `today` come in, specs, dated price references and notes come
out. Unknown names and impossible builds raise a UserError with a one-line message. This module
resolves owning; the context lives in cost.context and renting in cost.resolve_rent (both
re-exported here, where callers have always found them).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from gpuwise.catalog.catalog import Catalog
from gpuwise.catalog.schema import Gpu
from gpuwise.catalog.schema_cost import HostPlatform
from gpuwise.catalog.schema_extra import Maintenance
from gpuwise.cost.channel import Buyer, card_price, only_second_hand
from gpuwise.cost.context import CURRENCIES, Context, fx_ref, make_context, with_retrieved
from gpuwise.cost.market import hardware_index, imported_host, index_note
from gpuwise.cost.model import DAYS_PER_MONTH, Note, PriceRef
from gpuwise.cost.own import OwnSpec, resale_fraction
from gpuwise.cost.power import (
    COLOCATION_SITE,
    DEFAULT_TARIFF,
    NO_COLOCATION,
    Colocation,
    assumption,
    busy_fraction,
    card_draw,
    colocation_of,
    host_draw,
    region_chain,
    site_pue,
    tariff_price,
)
from gpuwise.cost.resale import ResaleCurve, resale_curve
from gpuwise.cost.resolve_host import OwnOptions, build_host, latest_price
from gpuwise.cost.resolve_rent import (
    HIDDEN_FIELDS,
    RentOptions,
    ResolvedRent,
    find_offer,
    find_provider,
    hidden_rates,
    parse_vs,
    resolve_rent,
)
from gpuwise.errors import UserError

__all__ = [
    "CURRENCIES",
    "DEFAULT_TARIFF",
    "HIDDEN_FIELDS",
    "Context",
    "OwnOptions",
    "RentOptions",
    "ResolvedRent",
    "assumption",
    "find_offer",
    "find_provider",
    "fx_ref",
    "hidden_rates",
    "make_context",
    "parse_vs",
    "resolve_rent",
    "with_retrieved",
]


# ---------------------------------------------------------------- owning


@dataclass(frozen=True)
class ResolvedOwn:
    """An owning spec with what it rests on: platform, PSU, parts, dated prices, notes."""

    spec: OwnSpec
    platform: str
    psu_w: float | None
    host_parts: tuple[tuple[str, float], ...]
    prices: tuple[PriceRef, ...]
    notes: tuple[Note, ...]
    site: str = "office"
    """The site (or the user's PUE) the electricity was charged for."""
    system: str | None = None
    """The system SKU bought whole (gpuwise.cost.system), or None for cards in a host."""
    system_priced: bool = True
    systems: int = 0


def _months_between(a: dt.date, b: dt.date) -> float:
    return max(0.0, (b - a).days / DAYS_PER_MONTH)


def _resale_points(cat: Catalog, gpu: Gpu) -> tuple[tuple[tuple[float, float], ...], list[str]]:
    """The card's resale curve knots and the cards they rest on (cost.resale builds them)."""
    curve = resale_curve(cat, gpu)
    return ((), []) if curve is None else (curve.knots, list(curve.cards))


def resale_notes(curve: ResaleCurve | None, gpu: Gpu) -> list[Note]:
    """What the resale credit rests on: the level of data used, any haircut, the sources.

    Why stated: a resale credit is the least certain number of a purchase, so the user sees
    which cards' used prices it follows and whether a thin curve was capped by a wider one.
    """
    if curve is None:
        return [Note.of("cost.note_no_resale", gpu=gpu.id)]
    last_m, last_f = curve.knots[-1] if curve.knots else (0.0, 1.0)
    notes = [
        Note.of(
            f"cost.note_resale_basis_{curve.basis}",
            gpu=gpu.id,
            others=", ".join(curve.cards),
            points=curve.points,
            sources=", ".join(curve.sources),
            last_months=round(last_m),
            last_pct=round(100 * last_f),
            tail_pct=round(100 * curve.tail_annual_decline),
        )
    ]
    if curve.haircut:
        notes.append(Note.of(f"cost.note_resale_haircut_{curve.haircut}", gpu=gpu.id))
    return notes


def _card_price(
    gpu: Gpu, ctx: Context, user: float | None, owned: bool = False, buyer: Buyer | None = None
) -> tuple[float, list[Note], PriceRef | None]:
    """Purchase price per card: the user's, else the price of the buyer's channel
    (gpuwise.cost.channel: a company pays new prices only), else the launch price.

    Cards the user already owns need no price (nothing is bought); without one, their
    maintenance allowance is unknown and said so. The note names the channel and condition the
    price was seen in, so a plan never hides that it priced a card at an eBay listing.
    """
    if user is not None:
        ref = PriceRef(
            "card:user", user, ctx.currency, "card", ctx.today, "user", False, origin="user"
        )
        return user, [], ref
    chosen = card_price(gpu, buyer, ctx.currency)
    if chosen is None and owned:
        return 0.0, [Note.of("cost.note_owned_unpriced", gpu=gpu.id)], None
    if chosen is None and only_second_hand(gpu, buyer):
        raise UserError("cost.no_new_card_price", gpu=gpu.id)
    if chosen is None:
        raise UserError("cost.no_card_price", gpu=gpu.id)
    notes = [Note.of("cost.note_launch_price", gpu=gpu.id)] if chosen.kind == "launch" else []
    notes.append(
        Note.of(
            f"cost.note_card_{chosen.bought_as}",
            gpu=gpu.id,
            channel=chosen.seen_at,
            amount=f"{chosen.amount:,.0f}",
            currency=chosen.currency,
            source=chosen.source,
        )
    )
    ref = ctx.ref(
        f"card:{chosen.kind}", chosen.amount, chosen.currency, "card", chosen.date, chosen.source
    )
    return ctx.money(chosen.amount, chosen.currency), notes, ref


def _check_count(gpu: Gpu, count: int, owned: bool = False) -> None:
    """A count of cards one host takes. Cards the user already owns are where they are: a
    host of four blower-style RTX 4090s exists whatever a desktop takes (the catalog's
    max_per_host bounds what is bought, not what is owned)."""
    if count < 1:
        raise UserError("cost.bad_count", value=count)
    if count > gpu.max_per_host and not owned:
        raise UserError("cost.too_many_cards", gpu=gpu.id, count=count, max=gpu.max_per_host)


def _check_own_options(opts: OwnOptions) -> None:
    for option, v in (
        ("--card-price", opts.card_price),
        ("--host-price", opts.host_price),
        ("--maintenance-pct", opts.maintenance_pct),
    ):
        if v is not None and v < 0:
            raise UserError("cost.negative", option=option, value=v)
    if opts.resale_pct is not None and not 0 <= opts.resale_pct <= 100:
        raise UserError("cost.bad_pct", option="--resale-pct", value=opts.resale_pct)


def _maintenance(cat: Catalog, opts: OwnOptions) -> float:
    if opts.maintenance_pct is not None:
        return opts.maintenance_pct / 100
    maint: Sequence[Maintenance] = cat.extra("maintenance")
    return maint[0].annual_fraction if maint else 0.0


def warranty_months(cat: Catalog, applies_to: str, region: str | None, currency: str) -> float:
    """Months a new purchase of this kind is repaired or replaced at no charge: the longest of
    the maker's standard warranty and the legal minimum of the region or any region holding
    it (DE lies in eu: cost.power.region_chain, as for tariffs); none for a kind the catalog
    has no warranty for."""
    places = {"any", *region_chain(cat, region, currency)}
    years = [
        w.years
        for w in cat.extra("warranty")
        if w.applies_to == applies_to and w.region.lower() in places
    ]
    return max(years, default=0.0) * 12


def _card_warranty(
    cat: Catalog, ctx: Context, gpu: Gpu, opts: OwnOptions, ref: PriceRef | None
) -> float:
    """Months of warranty on cards bought for this option: none on cards already owned or
    bought second-hand; Apple's terms for a Mac, else the card class's."""
    if opts.owned or (ref is not None and ref.label == "card:used"):
        return 0.0
    kind = "apple" if gpu.vendor == "apple" else gpu.gpu_class
    return warranty_months(cat, kind, opts.region, ctx.currency)


@dataclass(frozen=True)
class _Resale:
    base: float
    age_months: float
    curve: tuple[tuple[float, float], ...]
    override: float | None
    tail: float = 0.0


def _resale(
    cat: Catalog, ctx: Context, gpu: Gpu, card_price: float, opts: OwnOptions, notes: list[Note]
) -> _Resale:
    """What the cards fetch used: launch price × the curve at their age, or the user's share."""
    launch = latest_price(gpu.prices, "launch", ctx.currency)
    base = ctx.money(launch.amount, launch.currency) if launch else card_price
    launched = launch.date if launch and launch.date else dt.date(gpu.release_year, 1, 1)
    age = _months_between(launched, ctx.today)
    if opts.resale_pct is not None:
        return _Resale(base, age, (), opts.resale_pct / 100)
    curve = resale_curve(cat, gpu)
    notes += resale_notes(curve, gpu)
    knots, tail = (curve.knots, curve.tail_annual_decline) if curve else ((), 0.0)
    return _Resale(base, age, knots, None, tail)


def used_value_now(gpu: Gpu, ctx: Context, resale: _Resale) -> float | None:
    """What one card fetches sold today: the newest dated second-hand price of the card,
    carried from its date to today along the card's resale curve, f(age now) / f(age then)
    (a market price beats a curve built to err low for purchases; the curve still ages it).
    None where the card has no dated used price."""
    used = latest_price(gpu.prices, "used", ctx.currency)
    if used is None or used.date is None:
        return None
    value = ctx.money(used.amount, used.currency)
    if resale.curve:
        then = max(0.0, resale.age_months - _months_between(used.date, ctx.today))
        at_then = resale_fraction(resale.curve, then, resale.tail)
        at_now = resale_fraction(resale.curve, resale.age_months, resale.tail)
        value *= at_now / at_then if at_then > 0 else 1.0
    return value


@dataclass(frozen=True)
class _Power:
    """What the machine draws and what its owner pays per kWh."""

    gpu_w: tuple[float | None, float | None]
    host_w: tuple[float, float]
    pue: float
    site: str
    tariff: float
    colocation: Colocation = NO_COLOCATION


SERVER_SITES = ("server-room", "datacenter", "colocation")
"""Sites where an owned host is a server that runs for the job, not a PC that runs anyway."""


def _power(
    cat: Catalog,
    ctx: Context,
    gpu: Gpu,
    count: int,
    platform: HostPlatform | None,
    opts: OwnOptions,
    notes: list[Note],
    prices: list[PriceRef],
) -> _Power:
    """Cards at the workload's share of TDP, the host sized to the host (none when the user's
    own PC at home or in the office runs anyway; an owned server in a server room, a data
    centre or a rack runs for the job and draws its host's power: blind w36-04, eight owned
    A100s with no host power), PUE by where the machine sits, the tariff its owner pays."""
    fraction = busy_fraction(cat, opts.workload)
    gpu_w = card_draw(cat, gpu, fraction, notes)
    pue, site = site_pue(cat, opts.site, opts.pue)
    host_w = (0.0, 0.0)
    charged = not opts.host_owned or site in SERVER_SITES
    if platform is not None and charged:
        host_w = host_draw(cat, platform, gpu, count, fraction)
    payer = "business" if site == COLOCATION_SITE else opts.payer  # the data centre meters it
    tariff, ref = tariff_price(cat, ctx, opts.tariff, payer, opts.region)
    if ref:
        prices.append(ref)
    if opts.host_owned and not charged:
        notes.append(Note.of("cost.note_host_not_charged"))
    if gpu_w[0] is not None and gpu_w[1] is not None and gpu.tdp_w:
        tdp_w = gpu.tdp_w * gpu.devices_per_card
        notes.append(
            Note.of(
                "cost.note_power",
                busy_w=gpu_w[0],
                pct=fraction,
                tdp_w=tdp_w,
                idle_w=gpu_w[1],
                host_w=host_w[0],
                site=site,
                pue=pue,
            )
        )
    # a rack is contracted for the whole machine's draw, an owned host's too (it moves in)
    rack_host_w = host_draw(cat, platform, gpu, count, fraction)[0] if platform else 0.0
    cards_w = gpu.tdp_w * gpu.devices_per_card * count if gpu.tdp_w else None
    peak_w = None if cards_w is None else cards_w + rack_host_w
    rent = colocation_of(cat, ctx, site, opts.region, peak_w, prices)
    return _Power(gpu_w, host_w, pue, site, tariff, rent)


def resolve_own(
    cat: Catalog, ctx: Context, gpu_name: str, count: int, opts: OwnOptions | None = None
) -> ResolvedOwn:
    """Everything needed to price owning `count` cards, from the catalog and user values."""
    opts = opts or OwnOptions()
    gpu = cat.gpu(gpu_name)
    _check_count(gpu, count, opts.owned)
    _check_own_options(opts)
    notes: list[Note] = []
    card_price, card_notes, card_ref = _card_price(
        gpu, ctx, opts.card_price, opts.owned, opts.buyer
    )
    notes += card_notes
    prices = [card_ref] if card_ref else []
    if opts.owned:
        notes.append(Note.of("cost.note_owned", gpu=gpu.id, count=count))
    platform_id, platform, host = build_host(cat, ctx, gpu, count, card_price, opts, notes, prices)
    index = None if opts.owned else hardware_index(cat, opts.region, ctx.currency)
    if index is not None:  # imported: duties and taxes on the world prices (host from them)
        card_price *= index.factor if opts.card_price is None else 1.0
        host = imported_host(host, index, opts.host_price is not None)
        notes.append(index_note(index))
    power = _power(cat, ctx, gpu, count, platform, opts, notes, prices)
    resale = _resale(cat, ctx, gpu, card_price, opts, notes)
    warranty = _card_warranty(cat, ctx, gpu, opts, card_ref)
    notes += [Note.of("cost.note_warranty", gpu=gpu.id, years=warranty / 12)] if warranty else []
    spec = OwnSpec(
        label=f"own:{gpu.id}x{count}",
        gpu_id=gpu.id,
        count=count,
        currency=ctx.currency,
        card_price=card_price,
        host_price=host.price,
        gpu_load_w=power.gpu_w[0],
        gpu_idle_w=power.gpu_w[1],
        host_load_w=power.host_w[0],
        host_idle_w=power.host_w[1],
        pue=power.pue,
        tariff_per_kwh=power.tariff,
        maintenance_annual_fraction=_maintenance(cat, opts),
        resale_base_per_card=resale.base,
        resale_age_months=resale.age_months,
        resale_curve=resale.curve,
        resale_fraction_override=resale.override,
        resale_tail_annual=resale.tail,
        unpriced_host=host.missing,
        owned=opts.owned,
        colocation_per_month=power.colocation.per_month,
        power_in_rent=power.colocation.power_included,
        colocation_unpriced=power.colocation.unpriced,
        warranty_months=warranty,
        bought_used=not opts.owned and card_ref is not None and card_ref.label == "card:used",
        used_value_per_card=used_value_now(gpu, ctx, resale) if opts.owned else None,
        idle_cards=opts.idle_cards,
        off_when_idle=opts.workload == "local",
    )
    parts, refs = tuple(host.parts), with_retrieved(cat, prices)
    return ResolvedOwn(spec, platform_id, host.psu_w, parts, refs, tuple(notes), power.site)
