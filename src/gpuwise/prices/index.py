"""Every offer as plain data, cached beside the catalog: `gpuwise offers` reads this and never
imports pydantic or unpickles thousands of typed entries (a refreshed feed cache holds 10,000
offers; the typed catalog takes about 0.3 s to load, this index about 0.03 s).

The index is rebuilt through the full loader whenever a catalog, feed or override file changes
(same fingerprint as the catalog cache), so it always says what `load_catalog()` says.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from gpuwise.catalog.catalog import Catalog

INDEX_VERSION = 3


class Record(NamedTuple):
    """One offer in one billing mode, in its provider's currency."""

    provider: str
    instance: str
    gpu: str
    gpu_count: float
    billing: str
    amount: float
    per: str
    per_hour: float
    published: dt.date | None
    retrieved: dt.date | None
    source: str
    regions: tuple[str, ...]
    origin: str
    price_region: str | None
    quoted_region: str | None
    """The region the price is quoted for: the offer's own, else its provider's."""
    currency: str | None = None
    """The amount's currency when it is not the provider's (a quote kept as given)."""


class ProviderInfo(NamedTuple):
    """What the listing shows and filters by."""

    id: str
    name_en: str
    name_zh: str
    region_kind: str
    currency: str
    public_prices: bool
    aliases: tuple[str, ...] = ()


class NamedRegion(NamedTuple):
    """A catalog region: the cloud region and country codes it covers (a trailing * matches a
    prefix) and whether it is mainland China's."""

    id: str
    codes: tuple[str, ...]
    kind: str


class PlainRate(NamedTuple):
    """An exchange rate with the fields cost.fx.build_fx reads."""

    currency: str
    rate: float
    date: dt.date
    source: str


@dataclass(frozen=True)
class OfferIndex:
    """Records plus what resolving a user's names needs (no typed catalog objects)."""

    records: tuple[Record, ...]
    providers: dict[str, ProviderInfo]
    gpu_index: dict[str, str]
    gpu_ids: tuple[str, ...]
    region_codes: frozenset[str]
    rates: tuple[PlainRate, ...]
    findings: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
    named_regions: dict[str, NamedRegion] = field(default_factory=dict)
    """The plan's regions (data/regions.toml) by each of their names, so `offers --region uk`
    takes the names `plan` takes (blind w59-01, w60-02: only cloud codes were accepted)."""
    version: int = field(default=INDEX_VERSION)


def build_index(cat: Catalog) -> OfferIndex:
    """The plain view of a loaded catalog."""
    from gpuwise.catalog.dating import offer_price_dates

    records = []
    for o in cat.offers:
        p_info = cat.providers.get(o.provider)
        if p_info is None:
            continue
        quoted = o.price_region or p_info.price_region
        for p in o.prices:
            when = offer_price_dates(cat, o, p)
            records.append(
                Record(
                    o.provider,
                    o.instance,
                    o.gpu,
                    o.gpu_count,
                    p.billing,
                    p.amount,
                    p.per,
                    p.per_hour,
                    when.published,
                    when.retrieved,
                    p.source or o.source,
                    tuple(o.regions),
                    o.origin,
                    o.price_region,
                    quoted,
                    p.currency,
                )
            )
    providers = {
        p.id: ProviderInfo(
            p.id, p.name_en, p.name_zh, p.region_kind, p.currency, p.public_prices, tuple(p.aliases)
        )
        for p in cat.providers.values()
    }
    rates = tuple(PlainRate(r.currency, r.rate, r.date, r.source) for r in cat.extra("rate"))
    from gpuwise.catalog.region_names import region_key

    named = {
        region_key(n): NamedRegion(r.id, tuple(r.codes), r.kind)
        for r in cat.extra("region")
        for n in (r.id, r.name_en, r.name_zh, *r.aliases)
    }
    return OfferIndex(
        records=tuple(records),
        providers=providers,
        gpu_index=dict(cat.gpu_index),
        gpu_ids=tuple(g.id for g in cat.gpus),
        region_codes=frozenset(r.lower() for o in cat.offers for r in o.regions),
        rates=rates,
        findings=cat.findings,
        named_regions=named,
    )


def load_index() -> OfferIndex:
    """The cached index for the current files, rebuilt (through load_catalog) when stale."""
    from gpuwise.catalog import files

    paths = files.builtin_files() + files.feed_files() + files.override_files()
    key = files.fingerprint(paths)
    cached = files.load_cached(key, kind="offers")
    if isinstance(cached, OfferIndex) and cached.version == INDEX_VERSION:
        if cached.findings:  # a user file left out: warn as the full loader does
            from gpuwise.catalog.catalog import warn_left_out

            warn_left_out(cached.findings)
        return cached
    from gpuwise.catalog.catalog import load_catalog

    index = build_index(load_catalog())
    files.store_cached(key, index, kind="offers")
    return index
