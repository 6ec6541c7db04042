"""Cloud offers → rental specs: `provider:instance[:billing]`, hidden-cost rates, spot risk.

Pure: the catalog and the context come in, a spec with its dated prices and notes comes out;
unknown providers, instances and billing modes are one clear error with close names.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuwise.catalog.catalog import Catalog, did_you_mean
from gpuwise.catalog.dating import offer_price_dates, source_dates
from gpuwise.catalog.names import normalize, suggest
from gpuwise.catalog.schema_cloud import BILLINGS, HiddenCosts, Offer, OfferPrice, Provider
from gpuwise.cost.context import Context
from gpuwise.cost.model import Note, PriceRef
from gpuwise.cost.power import assumption
from gpuwise.cost.rent import COMMIT_MONTHS, HiddenRates, RentSpec
from gpuwise.cost.spot import SpotRisk
from gpuwise.errors import UserError

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


def _offer_price(offer: Offer, billing: str | None) -> OfferPrice:
    """The offer's price in the billing asked for (on-demand, else its first, when none is)."""
    if billing is None:
        return offer.price("on-demand") or offer.prices[0]
    found = offer.price(billing)
    if found is None:
        have = ", ".join(p.billing for p in offer.prices)
        raise UserError("cost.no_billing", offer=offer.instance, billing=billing, have=have)
    return found


def _tail_rate(
    ctx: Context, provider: Provider, offer: Offer, billing: str, per_node: float
) -> float | None:
    """The offer's on-demand price per hour (a node's, in the result currency), which covers
    what is left of a project after its last whole commitment term: a 1-year reservation over
    18 months is a year reserved and six months on demand, not two years (blind w60-04).
    None for an hourly mode or an offer sold only committed."""
    on_demand = offer.price("on-demand")
    if COMMIT_MONTHS.get(billing, 0) <= 1 or on_demand is None or on_demand.per != "hour":
        return None
    return ctx.money(on_demand.amount, on_demand.currency_of(provider)) * per_node


def _hidden_refs(cat: Catalog, ctx: Context, provider: Provider) -> list[PriceRef]:
    """The provider's hidden-cost rates as dated price references."""
    hidden = cat.hidden_costs.get(provider.id)
    if hidden is None:
        return []
    refs = []
    for field, per in HIDDEN_FIELDS.items():
        value = getattr(hidden, field)
        if value is None:
            continue
        hsrc = hidden.field_sources.get(field, hidden.source)
        hd = source_dates(cat, hsrc)
        refs.append(
            ctx.ref(
                f"hidden:{field}", value, provider.currency, per, hd.published, hsrc, hd.retrieved
            )
        )
    return refs


def _spot_risk(cat: Catalog, provider: Provider, opts: RentOptions, notes: list[Note]) -> SpotRisk:
    """Interruptions per hour (the user's, the provider's published rate, else the catalog's
    assumption, said in a note) and the time a restart takes."""
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
    return SpotRisk(rate, restart_min / 60)


def resolve_rent(
    cat: Catalog, ctx: Context, vs: str, opts: RentOptions | None = None
) -> ResolvedRent:
    """Everything needed to price one `provider:instance[:billing]` option."""
    opts = opts or RentOptions()
    prov_name, inst_name, billing = parse_vs(vs)
    provider = find_provider(cat, prov_name)
    offer = find_offer(cat, provider, inst_name)
    price = _offer_price(offer, billing)
    cur = price.currency_of(provider)  # a quote given in USD for a CNY cloud stays USD
    label = f"{provider.id}:{offer.instance}:{price.billing}"
    when = offer_price_dates(cat, offer, price)
    src = price.source or offer.source
    offer_ref = ctx.ref(
        f"offer:{label}", price.amount, cur, price.per, when.published, src, when.retrieved,
        offer.origin,
    )  # fmt: skip
    notes: list[Note] = []
    spot = _spot_risk(cat, provider, opts, notes) if price.billing == "spot" else None
    # an offer quoted per GPU but sold as whole nodes (`node_gpus`) is rented a node at a time
    per_node = (offer.node_gpus or offer.gpu_count) / offer.gpu_count
    spec = RentSpec(
        label=label,
        provider=provider.id,
        instance=offer.instance,
        gpu_id=offer.gpu,
        gpu_count=offer.node_gpus or offer.gpu_count,
        billing=price.billing,
        price=ctx.money(price.amount, cur) * per_node,
        per=price.per,
        currency=ctx.currency,
        hidden=hidden_rates(cat.hidden_costs.get(provider.id), provider.currency, ctx),
        spot=spot,
        tail_per_hour=_tail_rate(ctx, provider, offer, price.billing, per_node),
    )
    prices = (offer_ref, *_hidden_refs(cat, ctx, provider))
    return ResolvedRent(spec, prices, tuple(notes))
