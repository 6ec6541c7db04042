"""Cloud offers as rows priced per GPU-hour in one currency, filtered and sorted (pure).

Runs on the plain offer index (prices/index.py), so `gpuwise offers` needs neither pydantic nor
the typed catalog; `gpuwise.cost.offers.list_offers` runs the same query on a loaded catalog.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Protocol

from gpuwise.catalog.dating import is_stale
from gpuwise.catalog.names import normalize, suggest
from gpuwise.catalog.region_names import in_codes, region_key
from gpuwise.errors import UserError
from gpuwise.prices.index import OfferIndex, Record

BILLINGS = (
    "on-demand",
    "spot",
    "monthly",
    "yearly",
    "reserved-1y",
    "reserved-3y",
    "savings-plan-1y",
    "savings-plan-3y",
)
"""The billing modes of catalog/schema_cloud.py (`Billing`), kept here so this path stays free
of pydantic; tests/prices/test_offers_index.py checks the two agree."""


class Money(Protocol):
    """What the query needs of a cost context: the result currency, conversion, today."""

    @property
    def currency(self) -> str:
        """The result currency."""
        ...

    @property
    def today(self) -> dt.date:
        """The day prices are judged stale against."""
        ...

    def money(self, amount: float, currency: str) -> float:
        """`amount` in `currency` converted to the result currency."""
        ...


@dataclass(frozen=True)
class OfferRow:
    """One offer in one billing mode, with its native price and its price per GPU-hour."""

    provider: str
    provider_name_en: str
    provider_name_zh: str
    region_kind: str
    instance: str
    gpu: str
    gpu_count: float
    billing: str
    amount: float
    per: str
    native_currency: str
    currency: str
    per_gpu_hour: float
    per_hour: float
    date: dt.date | None
    stale: bool
    source: str
    regions: tuple[str, ...]
    retrieved: dt.date | None = None
    origin: str = "catalog"
    price_region: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON shape (stable keys): `date` is the published date, None when unknown."""
        return {
            "provider": self.provider,
            "provider_name": {"en": self.provider_name_en, "zh": self.provider_name_zh},
            "region_kind": self.region_kind,
            "instance": self.instance,
            "gpu": self.gpu,
            "gpu_count": self.gpu_count,
            "billing": self.billing,
            "price": {"amount": self.amount, "per": self.per, "currency": self.native_currency},
            "per_gpu_hour": self.per_gpu_hour,
            "per_hour": self.per_hour,
            "currency": self.currency,
            "date": self.date.isoformat() if self.date else None,
            "published": self.date.isoformat() if self.date else None,
            "retrieved": self.retrieved.isoformat() if self.retrieved else None,
            "stale": self.stale,
            "undated": self.date is None,
            "origin": self.origin,
            "source": self.source,
            "regions": list(self.regions),
            "price_region": self.price_region,
        }


def _hint(names: list[str]) -> str:
    from gpuwise.i18n import t

    return t("cli.did_you_mean", names=", ".join(names)) if names else ""


def gpu_id(index: OfferIndex, name: str) -> str:
    """A GPU id from any of its names; unknown names suggest close ones."""
    found = index.gpu_index.get(normalize(name))
    if found is None:
        display = {g: g for g in index.gpu_ids}
        raise UserError(
            "gpu.unknown", name=name, hint=_hint(suggest(name, index.gpu_index, display))
        )
    return found


def provider_id(index: OfferIndex, name: str) -> str:
    """A provider id from its id, English or Chinese name or an alias; an unknown name is
    refused with the nearest providers (catalog/providers.py)."""
    from gpuwise.catalog.providers import find_id

    return find_id(index.providers, name)


@dataclass(frozen=True)
class RegionFilter:
    """What `--region` keeps: a provider kind (`cn`, `global`), or the offers priced in a set of
    cloud region codes (a catalog region's, or the one code given), with mainland China's
    providers that list no region where the region is China's (as the plan reads them)."""

    kind: str | None = None
    codes: tuple[str, ...] = ()
    china: bool = False

    def keeps(self, r: Record, p_kind: str) -> bool:
        """Whether the record passes."""
        if self.kind:
            return p_kind == self.kind
        if self.china and p_kind == "cn" and not r.regions:
            return True
        return _priced_in(r, self.codes)


def _region_filter(index: OfferIndex, region: str) -> RegionFilter:
    """`cn`/`global` filter providers; a name `plan` takes (us, uk, india, 东京) its region's
    codes, before any cloud code spelt the same; anything else must be a cloud region code
    some offer lists."""
    key = region.strip().lower()
    if key in ("cn", "global"):
        return RegionFilter(kind=key)
    named = index.named_regions.get(region_key(region))
    if named is not None:  # a name first, as the plan reads it (blind w61-02: "us" matched
        return RegionFilter(codes=named.codes, china=named.kind == "cn")  # the bare code US)
    if key in index.region_codes:
        return RegionFilter(codes=(key,))
    known = {normalize(r): r for r in sorted(index.region_codes)}
    known |= {k: n.id for k, n in index.named_regions.items() if k.isascii()}
    raise UserError("offers.unknown_region", name=region, hint=_hint(suggest(region, known, {})))


def _priced_in(r: Record, codes: tuple[str, ...]) -> bool:
    """The price is quoted for one of `codes` (the offer's or its provider's price region), or,
    when neither says, one of the regions it lists is: a us-east-1 price that merely lists
    eu-central-1 as available is not an eu-central-1 price."""
    if r.quoted_region:
        return in_codes(codes, r.quoted_region)
    return any(in_codes(codes, c) for c in r.regions)


def query(
    index: OfferIndex,
    ctx: Money,
    gpu: str | None = None,
    provider: str | None = None,
    region: str | None = None,
    billing: str | None = None,
    max_price: float | None = None,
) -> list[OfferRow]:
    """Offers matching the filters, cheapest per GPU-hour first (ties: provider, instance)."""
    gid = gpu_id(index, gpu) if gpu else None
    pid = provider_id(index, provider) if provider else None
    where = _region_filter(index, region) if region else None
    if billing is not None and billing.lower() not in BILLINGS:
        raise UserError("offers.bad_billing", value=billing, choices=", ".join(BILLINGS))
    if max_price is not None and max_price < 0:
        raise UserError("cost.negative", option="--max-price", value=max_price)
    want = billing.lower() if billing else None
    rows: list[OfferRow] = []
    for r in index.records:
        if (gid and r.gpu != gid) or (pid and r.provider != pid) or (want and r.billing != want):
            continue
        p = index.providers[r.provider]
        if where is not None and not where.keeps(r, p.region_kind):
            continue
        native = r.currency or p.currency  # a quote is kept in the currency it was given in
        per_hour = ctx.money(r.per_hour, native)
        row = OfferRow(
            r.provider, p.name_en, p.name_zh, p.region_kind, r.instance, r.gpu, r.gpu_count,
            r.billing, r.amount, r.per, native, ctx.currency, per_hour / r.gpu_count,
            per_hour, r.published, is_stale(r.published, ctx.today), r.source, r.regions,
            r.retrieved, r.origin, r.price_region,
        )  # fmt: skip
        if max_price is None or row.per_gpu_hour <= max_price:
            rows.append(row)
    rows.sort(key=lambda r: (r.per_gpu_hour, r.provider, r.instance, r.billing))
    return rows
