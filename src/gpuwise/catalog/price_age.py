"""How old the built-in catalog's cloud prices are, per provider (issue 29 item 6).

A user deciding between clouds needs to know whether a price is last month's or from 2021: the
catalog keeps prices that are years old when nothing newer is public (Alibaba's 2023 list,
Featurize's 2021 table), and `gpuwise prices status` shows that spread per provider instead of
leaving it to each offer's footnote. Pure: the caller passes the catalog and today's date.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpuwise.catalog.dating import offer_price_dates

if TYPE_CHECKING:
    from gpuwise.catalog.catalog import Catalog
    from gpuwise.catalog.schema_cloud import Offer

OLD_AFTER_DAYS = 365
"""An offer whose price was published more than this many days ago counts as "over 12 months"."""


@dataclass(frozen=True)
class ProviderPriceAge:
    """One provider's built-in offers by the date their prices were published.

    `undated` offers have no published date anywhere (price, offer or source): they are counted
    apart, never folded into the oldest/median/newest dates, so an undated list does not look new.
    """

    provider: str
    region_kind: str
    offers: int
    dated: int
    undated: int
    oldest: dt.date | None
    median: dt.date | None
    newest: dt.date | None
    older_than_12_months: int

    def as_dict(self) -> dict[str, object]:
        """JSON shape: dates as ISO strings (None stays null)."""
        iso = {k: (d.isoformat() if d else None) for k, d in self._dates().items()}
        return {
            "provider": self.provider,
            "region_kind": self.region_kind,
            "offers": self.offers,
            "dated": self.dated,
            "undated": self.undated,
            **iso,
            "older_than_12_months": self.older_than_12_months,
        }

    def _dates(self) -> dict[str, dt.date | None]:
        return {"oldest": self.oldest, "median": self.median, "newest": self.newest}


def offer_as_of(cat: Catalog, offer: Offer) -> dt.date | None:
    """The date an offer's prices stand as of: the oldest published date among its prices.

    The oldest, not the newest: an offer whose on-demand price is from 2023 is a 2023 offer even
    when a spot figure beside it is newer, so "older than 12 months" never hides a stale price.
    """
    dates = [offer_price_dates(cat, offer, p).published for p in offer.prices]
    known = [d for d in dates if d is not None]
    return min(known) if known else None


def median_date(dates: list[dt.date]) -> dt.date:
    """The middle date (for an even count, the earlier of the two middle ones: a real as-of date
    of some offer rather than a day no price was published on)."""
    ordered = sorted(dates)
    return ordered[(len(ordered) - 1) // 2]


def provider_price_ages(cat: Catalog, today: dt.date) -> list[ProviderPriceAge]:
    """Per provider with built-in offers (feed and user offers left out): counts and dates,
    oldest median first so the stalest providers lead."""
    by_provider: dict[str, list[dt.date | None]] = {}
    for offer in cat.offers:
        if offer.origin == "catalog":
            by_provider.setdefault(offer.provider, []).append(offer_as_of(cat, offer))
    rows = [_row(cat, pid, dates, today) for pid, dates in by_provider.items()]
    return sorted(rows, key=lambda r: (r.median is None, r.median or today, r.provider))


def _row(
    cat: Catalog, provider: str, dates: list[dt.date | None], today: dt.date
) -> ProviderPriceAge:
    known = [d for d in dates if d is not None]
    old = sum(1 for d in known if (today - d).days > OLD_AFTER_DAYS)
    p = cat.providers.get(provider)
    return ProviderPriceAge(
        provider=provider,
        region_kind=p.region_kind if p else "",
        offers=len(dates),
        dated=len(known),
        undated=len(dates) - len(known),
        oldest=min(known) if known else None,
        median=median_date(known) if known else None,
        newest=max(known) if known else None,
        older_than_12_months=old,
    )
