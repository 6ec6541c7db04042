"""Catalog entries → the plain specs the cost functions take (currency converted, dated).

Pure: the catalog object and `today` come in, specs, dated price references and notes come
out. Unknown names and impossible builds raise a UserError with a one-line message.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from gpuwise.catalog.catalog import Catalog, did_you_mean
from gpuwise.catalog.dating import offer_price_dates, source_dates
from gpuwise.catalog.names import normalize, suggest
from gpuwise.catalog.schema import Gpu, Price
from gpuwise.catalog.schema_cloud import BILLINGS, HiddenCosts, Offer, Provider
from gpuwise.catalog.schema_cost import CostAssumption, HostPlatform
from gpuwise.catalog.schema_extra import HostPart, Maintenance, PsuSizing, Pue, ResalePoint, Tariff
from gpuwise.cost.fx import Fx, build_fx
from gpuwise.cost.model import DAYS_PER_MONTH, Note, PriceRef, is_stale
from gpuwise.cost.own import OwnSpec, pick_psu, psu_watts
from gpuwise.cost.rent import HiddenRates, RentSpec
from gpuwise.cost.spot import SpotRisk
from gpuwise.errors import UserError

CURRENCIES = ("CNY", "USD", "EUR")
DEFAULT_TARIFF = {"CNY": "cn-residential", "USD": "us-residential", "EUR": "eu-residential"}
"""Tariff preset used when none is given: the residential preset of the chosen currency."""

HIDDEN_FIELDS = {
    "block_storage_per_gb_month": "GB-month",
    "object_storage_per_gb_month": "GB-month",
    "egress_per_gb": "GB",
    "snapshot_per_gb_month": "GB-month",
    "public_ip_per_hour": "hour",
    "nat_gateway_per_hour": "hour",
    "nat_gateway_per_gb": "GB",
}
"""Hidden-cost rates shown with their dates, and the unit each is per."""


@dataclass(frozen=True)
class Context:
    """Currency of the results, exchange rates and the day prices are judged stale against."""

    currency: str
    fx: Fx
    today: dt.date

    def money(self, amount: float, currency: str) -> float:
        """`amount` in `currency` converted to the result currency."""
        return self.fx.convert(amount, currency, self.currency)

    def ref(
        self,
        label: str,
        amount: float,
        currency: str,
        per: str,
        date: dt.date | None,
        src: str,
        retrieved: dt.date | None = None,
        origin: str = "catalog",
    ) -> PriceRef:
        """A price reference dated by its published date, stale-checked against today."""
        stale = is_stale(date, self.today)
        return PriceRef(label, amount, currency, per, date, src, stale, retrieved, origin)


def with_retrieved(cat: Catalog, refs: Sequence[PriceRef]) -> tuple[PriceRef, ...]:
    """Fill each reference's retrieved date from its source (the user's own values have none)."""
    out = []
    for r in refs:
        src = cat.sources.get(r.source)
        if r.retrieved is None and src is not None:
            r = replace(r, retrieved=src.retrieved)
        out.append(r)
    return tuple(out)


def make_context(
    cat: Catalog, currency: str, today: dt.date, cny_per_usd: float | None = None
) -> Context:
    """Check the currency and build the exchange table (`--fx` overrides CNY per USD)."""
    cur = currency.upper()
    if cur not in CURRENCIES:
        raise UserError("cost.bad_currency", value=currency, choices=", ".join(CURRENCIES))
    return Context(cur, build_fx(cat.extra("rate"), cny_per_usd), today)


def assumption(cat: Catalog, key: str) -> CostAssumption:
    """A cost-model constant by id (a catalog without it is a broken install)."""
    for a in cat.extra("cost_assumption"):
        if a.id == key:
            return a  # type: ignore[no-any-return]
    raise UserError("cost.missing_constant", name=key)


def fx_ref(ctx: Context) -> PriceRef | None:
    """The CNY/USD rate used, as a dated reference (None when the user gave it)."""
    if "CNY" in ctx.fx.overridden:
        return None
    return ctx.ref(
        "fx", ctx.fx.rate("CNY"), "CNY", "USD", ctx.fx.dates.get("CNY"), ctx.fx.sources["CNY"]
    )


# ---------------------------------------------------------------- owning


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


@dataclass(frozen=True)
class ResolvedOwn:
    """An owning spec with what it rests on: platform, PSU, parts, dated prices, notes."""

    spec: OwnSpec
    platform: str
    psu_w: float | None
    host_parts: tuple[tuple[str, float], ...]
    prices: tuple[PriceRef, ...]
    notes: tuple[Note, ...]
    system: str | None = None
    """The system SKU bought whole (gpuwise.cost.system), or None for cards in a host."""
    system_priced: bool = True
    systems: int = 0


def _capacity(p: HostPlatform, parts: dict[str, HostPart]) -> int:
    """Cards a platform takes: its own limit and every part's (lanes, slots, bays)."""
    limits = [p.max_gpus, *(parts[x].max_gpus or p.max_gpus for x in p.parts if x in parts)]
    return min(limits)


def _platform(cat: Catalog, gpu: Gpu, count: int, name: str | None) -> HostPlatform:
    """The smallest platform that takes `count` cards of this form factor and cooling (a passive
    datacenter card needs a server's forced airflow) and whose RAM is sized for their VRAM
    (`max_gpu_memory_gb`), or the named one (taken as asked; its PSU is still sized by watts)."""
    platforms: Sequence[HostPlatform] = cat.extra("host_platform")
    parts = {p.id: p for p in cat.extra("host_part")}
    if name:
        chosen = next((p for p in platforms if p.id == name.lower()), None)
        if chosen is None:
            ids = ", ".join(p.id for p in platforms)
            raise UserError("cost.unknown_platform", value=name, choices=ids)
        fits = [chosen]
    else:  # a host whose RAM is sized for less VRAM than the build has is passed over
        vram_gb = gpu.memory_gb * gpu.devices_per_card * count
        fits = [
            p
            for p in sorted(platforms, key=lambda p: _capacity(p, parts))
            if p.max_gpu_memory_gb is None or vram_gb <= p.max_gpu_memory_gb
        ]
    for p in fits:
        takes = gpu.form_factor in p.form_factors and gpu.cooling in p.coolings
        if takes and _capacity(p, parts) >= count:
            return p
    raise UserError("cost.no_platform", gpu=gpu.id, count=count, form=gpu.form_factor)


def _latest(prices: Sequence[Price], kind: str, prefer: str) -> Price | None:
    """Newest price of a kind, preferring the result currency on the same date."""
    cands = [p for p in prices if p.kind == kind]
    if not cands:
        return None
    return max(cands, key=lambda p: (p.date or dt.date.min, p.currency == prefer))


def _months_between(a: dt.date, b: dt.date) -> float:
    return max(0.0, (b - a).days / DAYS_PER_MONTH)


def _resale_points(cat: Catalog, gpu: Gpu) -> tuple[tuple[tuple[float, float], ...], list[str]]:
    """Resale curve for a card: its own points, else its vendor and class's, else its class's.

    Points above 1.0 (a used card dearer than new: launch scarcity, the 2021 shortage) are
    market premiums, not depreciation, and are left out.
    """
    points: Sequence[ResalePoint] = [r for r in cat.extra("resale") if r.fraction_of_launch <= 1]
    by_id = {g.id: g for g in cat.gpus}

    def pick(test: Any) -> list[ResalePoint]:
        return [r for r in points if r.gpu in by_id and test(by_id[r.gpu])]

    for test in (
        lambda g: g.id == gpu.id,
        lambda g: g.vendor == gpu.vendor and g.gpu_class == gpu.gpu_class,
        lambda g: g.gpu_class == gpu.gpu_class,
    ):
        chosen = pick(test)
        if chosen:
            curve = tuple(sorted((r.months_since_launch, r.fraction_of_launch) for r in chosen))
            return curve, sorted({r.gpu for r in chosen})
    return (), []


def _number_or_preset(value: str) -> float | None:
    try:
        return float(value)
    except ValueError:
        return None


def _tariff(cat: Catalog, ctx: Context, value: str | None) -> tuple[float, PriceRef | None]:
    """Price per kWh in the result currency: a number (the user's) or a preset id."""
    if value is not None and (num := _number_or_preset(value)) is not None:
        if num < 0:
            raise UserError("cost.negative", option="--tariff", value=value)
        return num, None
    key = value or DEFAULT_TARIFF[ctx.currency]
    presets: Sequence[Tariff] = cat.extra("tariff")
    t = next((x for x in presets if x.id == key.lower()), None)
    if t is None:
        raise UserError("cost.unknown_tariff", value=key, choices=", ".join(x.id for x in presets))
    date = t.date or source_dates(cat, t.source).published
    ref = ctx.ref(f"tariff:{t.id}", t.price_per_kwh, t.currency, "kWh", date, t.source)
    return ctx.money(t.price_per_kwh, t.currency), ref


def _pue(cat: Catalog, value: str) -> float:
    if (num := _number_or_preset(value)) is not None:
        if not 1.0 <= num <= 3.0:
            raise UserError("cost.bad_pue", value=value)
        return num
    presets: Sequence[Pue] = cat.extra("pue")
    p = next((x for x in presets if x.id == value.lower()), None)
    if p is None:
        raise UserError("cost.unknown_pue", value=value, choices=", ".join(x.id for x in presets))
    return p.pue


def _card_price(
    gpu: Gpu, ctx: Context, user: float | None, owned: bool = False
) -> tuple[float, list[Note], PriceRef | None]:
    """Purchase price per card: the user's, else the newest street price, else launch price.

    Cards the user already owns need no price (nothing is bought); without one, their
    maintenance allowance is unknown and said so.
    """
    if user is not None:
        ref = PriceRef(
            "card:user", user, ctx.currency, "card", ctx.today, "user", False, origin="user"
        )
        return user, [], ref
    street = _latest(gpu.prices, "street", ctx.currency)
    chosen = street or _latest(gpu.prices, "launch", ctx.currency)
    if chosen is None and owned:
        return 0.0, [Note.of("cost.note_owned_unpriced", gpu=gpu.id)], None
    if chosen is None:
        raise UserError("cost.no_card_price", gpu=gpu.id)
    notes = [] if street else [Note.of("cost.note_launch_price", gpu=gpu.id)]
    ref = ctx.ref(
        f"card:{chosen.kind}", chosen.amount, chosen.currency, "card", chosen.date, chosen.source
    )
    return ctx.money(chosen.amount, chosen.currency), notes, ref


def _host_in_price(gpu: Gpu, ctx: Context, user: float | None) -> bool:
    """Whether the card price used is a whole server's divided by its GPUs (host included)."""
    if user is not None:
        return False
    chosen = _latest(gpu.prices, "street", ctx.currency) or _latest(
        gpu.prices, "launch", ctx.currency
    )
    return bool(chosen and chosen.includes_host)


def _check_count(gpu: Gpu, count: int) -> None:
    if count < 1:
        raise UserError("cost.bad_count", value=count)
    if count > gpu.max_per_host:
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


@dataclass
class _Host:
    """The host a build needs: its price (None: unpriced), missing kinds, parts, PSU size."""

    price: float | None
    missing: tuple[str, ...]
    parts: list[tuple[str, float]]
    psu_w: float | None


def _psu(
    cat: Catalog, ctx: Context, gpu: Gpu, count: int, notes: list[Note], prices: list[PriceRef]
) -> tuple[tuple[str, float] | None, float | None]:
    """The cheapest PSU big enough for the cards' TDP (psu_sizing), and the watts it needs."""
    sizing: Sequence[PsuSizing] = cat.extra("psu_sizing")
    if not gpu.tdp_w or not sizing:
        return None, None
    s = sizing[0]
    psu_w = psu_watts(s.base_system_w, gpu.tdp_w * gpu.devices_per_card, count, s.headroom_factor)
    parts = [p for p in cat.extra("host_part") if p.kind == "psu"]
    psu_id = pick_psu(  # PSUs are rated in whole watts
        round(psu_w), [(p.id, p.watts or 0.0, ctx.money(p.price, p.currency)) for p in parts]
    )
    if psu_id is None:
        notes.append(Note.of("cost.note_no_psu", watts=round(psu_w)))
        return None, psu_w
    part = next(p for p in parts if p.id == psu_id)
    prices.append(
        ctx.ref(f"part:{psu_id}", part.price, part.currency, "part", part.date, part.source)
    )
    return (psu_id, ctx.money(part.price, part.currency)), psu_w


def _host(
    cat: Catalog,
    ctx: Context,
    gpu: Gpu,
    count: int,
    platform: HostPlatform,
    opts: OwnOptions,
    notes: list[Note],
    prices: list[PriceRef],
) -> _Host:
    """Price the platform's parts; a kind it needs without a priced part stays unpriced."""
    if opts.owned:
        return _Host(None, (), [], None)
    parts = {p.id: p for p in cat.extra("host_part")}
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
        return _Host(opts.host_price, (), chosen, psu_w)
    missing = tuple(k for k in platform.needs if k not in covered)
    if missing:
        notes.append(Note.of("cost.note_platform", platform=platform.id))
    return _Host(sum(p for _, p in chosen) if chosen else None, missing, chosen, psu_w)


def _power(cat: Catalog, gpu: Gpu, notes: list[Note]) -> tuple[float | None, float | None]:
    """Card draw under load and at idle (measured idle where the catalog has it); a card with
    several devices draws each device's TDP."""
    if not gpu.tdp_w:
        notes.append(Note.of("cost.note_no_tdp", gpu=gpu.id))
        return None, None
    tdp = gpu.tdp_w * gpu.devices_per_card
    load_frac = assumption(cat, "gpu_load_fraction_of_tdp").value
    idle_frac = assumption(cat, "gpu_idle_fraction_of_tdp").value
    measured = next((x.idle_w for x in cat.extra("gpu_idle_power") if x.gpu == gpu.id), None)
    if measured is None:
        notes.append(Note.of("cost.note_idle_from_tdp", gpu=gpu.id))
    return tdp * load_frac, measured if measured is not None else tdp * idle_frac


def _server_host_estimate(
    cat: Catalog, host: _Host, platform: HostPlatform, cards_total: float, notes: list[Note]
) -> _Host:
    """A server whose barebone has no dated price: estimate the whole host from the cards.

    Epoch AI's average server-to-chip cost multiplier (1.64) puts everything but the GPUs at
    `server_host_cost_fraction_of_gpu` × the GPUs' price; the estimate replaces the parts sum.
    """
    if not host.missing or "server_barebone" not in platform.needs or cards_total <= 0:
        return host
    fraction = assumption(cat, "server_host_cost_fraction_of_gpu").value
    notes.append(Note.of("cost.note_host_estimated", platform=platform.id, fraction=fraction))
    return _Host(fraction * cards_total, (), [], host.psu_w)


def _maintenance(cat: Catalog, opts: OwnOptions) -> float:
    if opts.maintenance_pct is not None:
        return opts.maintenance_pct / 100
    maint: Sequence[Maintenance] = cat.extra("maintenance")
    return maint[0].annual_fraction if maint else 0.0


@dataclass(frozen=True)
class _Resale:
    base: float
    age_months: float
    curve: tuple[tuple[float, float], ...]
    override: float | None


def _resale(
    cat: Catalog, ctx: Context, gpu: Gpu, card_price: float, opts: OwnOptions, notes: list[Note]
) -> _Resale:
    """What the cards fetch used: launch price × the curve at their age, or the user's share."""
    launch = _latest(gpu.prices, "launch", ctx.currency)
    base = ctx.money(launch.amount, launch.currency) if launch else card_price
    launched = launch.date if launch and launch.date else dt.date(gpu.release_year, 1, 1)
    age = _months_between(launched, ctx.today)
    if opts.resale_pct is not None:
        return _Resale(base, age, (), opts.resale_pct / 100)
    curve, from_gpus = _resale_points(cat, gpu)
    if not curve:
        notes.append(Note.of("cost.note_no_resale", gpu=gpu.id))
    elif from_gpus != [gpu.id]:
        notes.append(Note.of("cost.note_resale_from", gpu=gpu.id, others=", ".join(from_gpus)))
    return _Resale(base, age, curve, None)


WHOLE_SYSTEM = "whole-system"
"""The platform of a machine sold whole (an Apple Mac): its price already includes the host."""


def resolve_own(
    cat: Catalog, ctx: Context, gpu_name: str, count: int, opts: OwnOptions | None = None
) -> ResolvedOwn:
    """Everything needed to price owning `count` cards, from the catalog and user values."""
    opts = opts or OwnOptions()
    gpu = cat.gpu(gpu_name)
    _check_count(gpu, count)
    _check_own_options(opts)
    notes: list[Note] = []
    card_price, card_notes, card_ref = _card_price(gpu, ctx, opts.card_price, opts.owned)
    notes += card_notes
    prices = [card_ref] if card_ref else []
    if opts.owned:
        notes.append(Note.of("cost.note_owned", gpu=gpu.id, count=count))
    if gpu.whole_system:
        platform_id, pue_name, host_w = WHOLE_SYSTEM, opts.pue or "home", (0.0, 0.0)
        host = _Host(0.0, (), [], None)
    else:
        platform = _platform(cat, gpu, count, opts.platform)
        platform_id, pue_name = platform.id, opts.pue or platform.pue
        host_w = (platform.load_w + count * platform.load_w_per_gpu, platform.idle_w)
        if opts.host_price is None and not opts.owned and _host_in_price(gpu, ctx, opts.card_price):
            host = _Host(0.0, (), [], None)
            notes.append(Note.of("cost.note_host_in_price", gpu=gpu.id))
        else:
            host = _host(cat, ctx, gpu, count, platform, opts, notes, prices)
            if opts.host_price is None and not opts.owned:
                host = _server_host_estimate(cat, host, platform, card_price * count, notes)
    gpu_load_w, gpu_idle_w = _power(cat, gpu, notes)
    tariff, tariff_ref = _tariff(cat, ctx, opts.tariff)
    if tariff_ref:
        prices.append(tariff_ref)
    resale = _resale(cat, ctx, gpu, card_price, opts, notes)
    spec = OwnSpec(
        label=f"own:{gpu.id}x{count}",
        gpu_id=gpu.id,
        count=count,
        currency=ctx.currency,
        card_price=card_price,
        host_price=host.price,
        gpu_load_w=gpu_load_w,
        gpu_idle_w=gpu_idle_w,
        host_load_w=host_w[0],
        host_idle_w=host_w[1],
        pue=_pue(cat, pue_name),
        tariff_per_kwh=tariff,
        maintenance_annual_fraction=_maintenance(cat, opts),
        resale_base_per_card=resale.base,
        resale_age_months=resale.age_months,
        resale_curve=resale.curve,
        resale_fraction_override=resale.override,
        unpriced_host=host.missing,
        owned=opts.owned,
    )
    return ResolvedOwn(
        spec, platform_id, host.psu_w, tuple(host.parts), with_retrieved(cat, prices), tuple(notes)
    )


# ---------------------------------------------------------------- renting


@dataclass(frozen=True)
class RentOptions:
    """User values for spot risk that win over the catalog defaults."""

    interruptions_per_day: float | None = None
    restart_min: float | None = None


@dataclass(frozen=True)
class ResolvedRent:
    """A rental spec with the dated prices it rests on and notes."""

    spec: RentSpec
    prices: tuple[PriceRef, ...]
    notes: tuple[Note, ...]


def parse_vs(text: str) -> tuple[str, str, str | None]:
    """`provider:instance[:billing]` → parts (instances may contain ':' only before a billing)."""
    provider, sep, rest = text.partition(":")
    if not sep or not provider or not rest:
        raise UserError("cost.bad_vs", value=text)
    billing = None
    head, sep2, tail = rest.rpartition(":")
    if sep2 and tail.lower() in BILLINGS:
        rest, billing = head, tail.lower()
    return provider.strip().lower(), rest.strip(), billing


def find_provider(cat: Catalog, name: str) -> Provider:
    """A provider by id, English or Chinese name or alias (catalog/providers.py); an unknown
    name is refused with the nearest providers, never taken for another one."""
    from gpuwise.catalog.providers import find_id

    exact = cat.providers.get(name)  # the plan asks by id, hundreds of times
    return exact if exact is not None else cat.providers[find_id(cat.providers, name)]


_OFFER_NAMES: dict[int, tuple[Catalog, dict[str, dict[str, Offer]]]] = {}


def _offer_names(cat: Catalog) -> dict[str, dict[str, Offer]]:
    """provider → normalized instance name → offer, built once per catalog (a planner looks up
    hundreds of offers among the thousands a refreshed price feed adds)."""
    held = _OFFER_NAMES.get(id(cat))
    if held is not None and held[0] is cat:
        return held[1]
    names: dict[str, dict[str, Offer]] = {}
    for o in cat.offers:
        names.setdefault(o.provider, {}).setdefault(normalize(o.instance.replace("×", "x")), o)
    _OFFER_NAMES.clear()
    _OFFER_NAMES[id(cat)] = (cat, names)
    return names


def find_offer(cat: Catalog, provider: Provider, instance: str) -> Offer:
    """An offer of `provider` by instance name (case, spaces and '×' ignored)."""
    offers = _offer_names(cat).get(provider.id, {})
    found = offers.get(normalize(instance.replace("×", "x")))
    if found is not None:
        return found
    index = {key: o.instance for key, o in offers.items()}
    hint = did_you_mean(suggest(instance, index, {}))
    raise UserError("cost.unknown_instance", provider=provider.id, name=instance, hint=hint)


def hidden_rates(h: HiddenCosts | None, src_currency: str, ctx: Context) -> HiddenRates:
    """A provider's hidden-cost rates in the result currency (None stays None)."""
    if h is None:
        return HiddenRates()

    def m(v: float | None) -> float | None:
        return None if v is None else ctx.money(v, src_currency)

    return HiddenRates(
        block_per_gb_month=m(h.block_storage_per_gb_month),
        object_per_gb_month=m(h.object_storage_per_gb_month),
        egress_per_gb=m(h.egress_per_gb),
        egress_free_gb_per_month=h.egress_free_gb_per_month,
        snapshot_per_gb_month=m(h.snapshot_per_gb_month),
        public_ip_per_hour=m(h.public_ip_per_hour),
        nat_per_hour=m(h.nat_gateway_per_hour),
        nat_per_gb=m(h.nat_gateway_per_gb),
    )


def resolve_rent(
    cat: Catalog, ctx: Context, vs: str, opts: RentOptions | None = None
) -> ResolvedRent:
    """Everything needed to price one `provider:instance[:billing]` option."""
    opts = opts or RentOptions()
    prov_name, inst_name, billing = parse_vs(vs)
    provider = find_provider(cat, prov_name)
    offer = find_offer(cat, provider, inst_name)
    if billing is None:
        price = offer.price("on-demand") or offer.prices[0]
    else:
        found = offer.price(billing)
        if found is None:
            have = ", ".join(p.billing for p in offer.prices)
            raise UserError("cost.no_billing", offer=offer.instance, billing=billing, have=have)
        price = found
    cur = price.currency_of(provider)  # a quote given in USD for a CNY cloud stays USD
    src = price.source or offer.source
    label = f"{provider.id}:{offer.instance}:{price.billing}"
    when = offer_price_dates(cat, offer, price)
    prices = [
        ctx.ref(
            f"offer:{label}",
            price.amount,
            cur,
            price.per,
            when.published,
            src,
            when.retrieved,
            offer.origin,
        )
    ]
    hidden = cat.hidden_costs.get(provider.id)
    if hidden is not None:
        for field, per in HIDDEN_FIELDS.items():
            value = getattr(hidden, field)
            if value is None:
                continue
            hsrc = hidden.field_sources.get(field, hidden.source)
            hd = source_dates(cat, hsrc)
            prices.append(
                ctx.ref(
                    f"hidden:{field}", value, provider.currency, per, hd.published, hsrc,
                    hd.retrieved,
                )
            )  # fmt: skip
    notes: list[Note] = []
    spot = None
    if price.billing == "spot":
        for option, v in (
            ("--spot-interruptions-per-day", opts.interruptions_per_day),
            ("--restart-min", opts.restart_min),
        ):
            if v is not None and v < 0:
                raise UserError("cost.negative", option=option, value=v)
        if opts.interruptions_per_day is not None:
            rate = opts.interruptions_per_day / 24
        elif provider.spot_interruptions_per_day is not None:  # the provider's published rate
            rate = provider.spot_interruptions_per_day / 24
        else:
            rate = assumption(cat, "spot_interruptions_per_hour").value
            notes.append(Note.of("cost.note_spot_default", provider=provider.id, per_day=rate * 24))
        restart_min = opts.restart_min
        if restart_min is None:
            restart_min = assumption(cat, "spot_restart_min").value
        spot = SpotRisk(rate, restart_min / 60)
    spec = RentSpec(
        label=label,
        provider=provider.id,
        instance=offer.instance,
        gpu_id=offer.gpu,
        gpu_count=offer.gpu_count,
        billing=price.billing,
        price=ctx.money(price.amount, cur),
        per=price.per,
        currency=ctx.currency,
        hidden=hidden_rates(hidden, provider.currency, ctx),
        spot=spot,
    )
    return ResolvedRent(spec, tuple(prices), tuple(notes))
