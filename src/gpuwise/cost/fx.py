"""Currency conversion with a dated rate from the catalog (fx.toml); `--fx` overrides CNY/USD."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpuwise.errors import UserError

if TYPE_CHECKING:  # only attributes are read: plain records with the same fields work too
    from gpuwise.catalog.schema_extra import FxRate


@dataclass(frozen=True)
class Fx:
    """Units of each currency per US dollar, with the date and source of each rate."""

    per_usd: dict[str, float]
    dates: dict[str, dt.date | None]
    sources: dict[str, str]
    overridden: frozenset[str] = frozenset()

    def rate(self, currency: str) -> float:
        """Units of `currency` per USD; an unknown currency is a clear error."""
        try:
            return self.per_usd[currency]
        except KeyError:
            raise UserError("cost.no_fx", currency=currency) from None

    def convert(self, amount: float, src: str, dst: str) -> float:
        """`amount` in `src` expressed in `dst` (through USD)."""
        if src == dst:
            return amount
        return amount / self.rate(src) * self.rate(dst)


def build_fx(rates: Iterable[FxRate], cny_per_usd: float | None = None) -> Fx:
    """The newest rate per currency; `cny_per_usd` (the `--fx` option) replaces CNY's."""
    per_usd: dict[str, float] = {"USD": 1.0}
    dates: dict[str, dt.date | None] = {"USD": None}
    sources: dict[str, str] = {"USD": ""}
    for r in sorted(rates, key=lambda r: r.date):
        per_usd[r.currency] = r.rate
        dates[r.currency] = r.date
        sources[r.currency] = r.source
    overridden: frozenset[str] = frozenset()
    if cny_per_usd is not None:
        if cny_per_usd <= 0:
            raise UserError("cost.bad_fx", value=cny_per_usd)
        per_usd["CNY"] = cny_per_usd
        dates["CNY"] = None
        sources["CNY"] = "user"
        overridden = frozenset({"CNY"})
    return Fx(per_usd, dates, sources, overridden)
