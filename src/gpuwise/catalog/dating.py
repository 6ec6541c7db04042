"""The two dates of a price: when its source stated it (`published`) and when it was read.

Staleness is judged on the published date (issue 14): a price read yesterday from a page last
changed two years ago is two years old. A price whose source states no date is "date unknown",
never silently fresh. The rule for each kind of source is in docs/catalog-format.md
("Dating prices"); a commit date is an upper bound (the price was published on or before it).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpuwise.catalog.catalog import Catalog
    from gpuwise.catalog.schema_cloud import Offer, OfferPrice


STALE_AFTER_DAYS = 180
"""Product rule (issue 5): a price published more than this many days ago is shown as stale."""


def is_stale(published: dt.date | None, today: dt.date) -> bool:
    """True when a price's published date is older than STALE_AFTER_DAYS.

    An undated price is not called stale (nobody knows its age): it is flagged "date unknown"
    instead (PriceRef.undated, risk.undated_price), never shown as fresh.
    """
    return published is not None and (today - published).days > STALE_AFTER_DAYS


@dataclass(frozen=True)
class PriceDates:
    """Published (None: the source states no date) and retrieved (None: no such source)."""

    published: dt.date | None
    retrieved: dt.date | None


def source_dates(cat: Catalog, source_id: str, own: dt.date | None = None) -> PriceDates:
    """Dates of a price from `source_id`; `own` (a row's or quote's stated date) wins."""
    src = cat.sources.get(source_id)
    retrieved = src.retrieved if src else None
    if own is not None:
        return PriceDates(own, retrieved)
    return PriceDates(src.published_date if src else None, retrieved)


def offer_price_dates(cat: Catalog, offer: Offer, price: OfferPrice) -> PriceDates:
    """An offer price's dates: the price's own date, else the offer's, else its source's."""
    src = price.source or offer.source
    return source_dates(cat, src, price.published or offer.published)


def hidden_cost_dates(cat: Catalog, source_id: str) -> PriceDates:
    """A hidden-cost rate is dated by its source."""
    return source_dates(cat, source_id)
