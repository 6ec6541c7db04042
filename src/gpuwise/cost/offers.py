"""Cloud offers as rows priced per GPU-hour in one currency, filtered and sorted (pure).

The query itself lives in gpuwise.prices.offer_query and runs on a plain view of the catalog
(gpuwise.prices.index), which `gpuwise offers` reads from its own cache without loading the
typed catalog; this module runs it on a loaded catalog for the other callers.
"""

from __future__ import annotations

from gpuwise.catalog.catalog import Catalog
from gpuwise.cost.resolve import Context
from gpuwise.prices.index import build_index
from gpuwise.prices.offer_query import OfferRow, query

__all__ = ["OfferRow", "list_offers"]


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
    return query(build_index(cat), ctx, gpu, provider, region, billing, max_price)
