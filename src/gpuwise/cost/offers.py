"""Cloud offers as rows priced per GPU-hour in one currency, filtered and sorted (pure)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from gpuwise.catalog.catalog import Catalog, did_you_mean
from gpuwise.catalog.names import normalize, suggest
from gpuwise.catalog.schema_cloud import BILLINGS, Offer, OfferPrice
from gpuwise.cost.model import is_stale
from gpuwise.cost.resolve import Context, find_provider
from gpuwise.errors import UserError


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

    def as_dict(self) -> dict[str, Any]:
        """JSON shape (stable keys)."""
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
            "stale": self.stale,
            "source": self.source,
            "regions": list(self.regions),
        }


def _region_filter(cat: Catalog, region: str) -> tuple[str | None, str | None]:
    """`cn`/`global` filter providers; anything else must be a region some offer lists."""
    key = region.strip().lower()
    if key in ("cn", "global"):
        return key, None
    known = {r.lower() for o in cat.offers for r in o.regions}
    if key not in known:
        index = {normalize(r): r for r in sorted(known)}
        hint = did_you_mean(suggest(region, index, {}))
        raise UserError("offers.unknown_region", name=region, hint=hint)
    return None, key


def list_offers(
    cat: Catalog,
    ctx: Context,
    gpu: str | None = None,
    provider: str | None = None,
    region: str | None = None,
    billing: str | None = None,
    max_price: float | None = None,
) -> list[OfferRow]:
    """Offers matching the filters, cheapest per GPU-hour first (ties: provider, instance)."""
    gpu_id = cat.gpu(gpu).id if gpu else None
    prov_id = find_provider(cat, provider).id if provider else None
    kind, region_name = _region_filter(cat, region) if region else (None, None)
    if billing is not None and billing.lower() not in BILLINGS:
        raise UserError("offers.bad_billing", value=billing, choices=", ".join(BILLINGS))
    if max_price is not None and max_price < 0:
        raise UserError("cost.negative", option="--max-price", value=max_price)
    rows: list[OfferRow] = []
    for offer in cat.offers:
        p = cat.providers.get(offer.provider)
        if p is None or (gpu_id and offer.gpu != gpu_id) or (prov_id and p.id != prov_id):
            continue
        if kind and p.region_kind != kind:
            continue
        if region_name and region_name not in {r.lower() for r in offer.regions}:
            continue
        for price in offer.prices:
            if billing and price.billing != billing.lower():
                continue
            row = _row(cat, ctx, offer, price, p.currency, p.name_en, p.name_zh, p.region_kind)
            if max_price is None or row.per_gpu_hour <= max_price:
                rows.append(row)
    rows.sort(key=lambda r: (r.per_gpu_hour, r.provider, r.instance, r.billing))
    return rows


def _row(
    cat: Catalog,
    ctx: Context,
    offer: Offer,
    price: OfferPrice,
    native: str,
    name_en: str,
    name_zh: str,
    region_kind: str,
) -> OfferRow:
    src = price.source or offer.source
    source = cat.sources.get(src)
    date = source.retrieved if source else None
    per_hour = ctx.money(price.per_hour, native)
    return OfferRow(
        provider=offer.provider,
        provider_name_en=name_en,
        provider_name_zh=name_zh,
        region_kind=region_kind,
        instance=offer.instance,
        gpu=offer.gpu,
        gpu_count=offer.gpu_count,
        billing=price.billing,
        amount=price.amount,
        per=price.per,
        native_currency=native,
        currency=ctx.currency,
        per_gpu_hour=per_hour / offer.gpu_count,
        per_hour=per_hour,
        date=date,
        stale=is_stale(date, ctx.today),
        source=src,
        regions=tuple(offer.regions),
    )
