"""A cost context without the typed catalog, for `gpuwise offers` answered from the plain offer
index (gpuwise.prices.index): the index's exchange rates become the same Fx the catalog path
uses. It lives in cost/ (not beside the query in prices/) so that prices never imports cost.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from gpuwise.cost.fx import build_fx
from gpuwise.errors import UserError
from gpuwise.prices.index import OfferIndex


@dataclass(frozen=True)
class PlainContext:
    """A cost context built from the index's rates (cost.resolve.Context without the catalog)."""

    currency: str
    fx: Any
    today: dt.date

    def money(self, amount: float, currency: str) -> float:
        """`amount` in `currency` converted to the result currency."""
        return float(self.fx.convert(amount, currency, self.currency))


def plain_context(
    index: OfferIndex, currency: str, today: dt.date, cny_per_usd: float | None
) -> PlainContext:
    """Check the currency and build the exchange table from the index (`--fx` wins)."""
    cur = currency.upper()
    if cur not in ("CNY", "USD", "EUR"):
        raise UserError("cost.bad_currency", value=currency, choices="CNY, USD, EUR")
    return PlainContext(cur, build_fx(index.rates, cny_per_usd), today)  # type: ignore[arg-type]
