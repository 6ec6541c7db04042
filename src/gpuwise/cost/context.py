"""The currency, exchange rates and day every cost is resolved against (pure)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from gpuwise.catalog.catalog import Catalog
from gpuwise.cost.fx import Fx, build_fx
from gpuwise.cost.model import PriceRef, is_stale
from gpuwise.errors import UserError

CURRENCIES = ("CNY", "USD", "EUR")


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
            r = r.retrieved_on(src.retrieved)
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


def fx_ref(ctx: Context) -> PriceRef | None:
    """The CNY/USD rate used, as a dated reference (None when the user gave it)."""
    if "CNY" in ctx.fx.overridden:
        return None
    return ctx.ref(
        "fx", ctx.fx.rate("CNY"), "CNY", "USD", ctx.fx.dates.get("CNY"), ctx.fx.sources["CNY"]
    )
