"""The age of the built-in catalog's prices, one row per provider (`gpuwise prices status`)."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from rich.table import Table

from gpuwise.i18n import t

if TYPE_CHECKING:
    from rich.console import Console

    from gpuwise.catalog.price_age import ProviderPriceAge


def render_price_ages(console: Console, rows: list[ProviderPriceAge], today: str) -> None:
    """A table of offers per provider with their oldest / median / newest price dates, stalest
    first, then a line on how to read it."""
    table = Table(title=t("prices.age.title", today=today), title_justify="left")
    for key in ("provider", "offers", "oldest", "median", "newest", "old", "undated"):
        table.add_column(
            t(f"prices.age.col_{key}"), justify="left" if key == "provider" else "right"
        )
    for r in rows:
        table.add_row(
            r.provider,
            str(r.offers),
            _date(r.oldest),
            _date(r.median),
            _date(r.newest),
            str(r.older_than_12_months),
            str(r.undated),
        )
    console.print(table)
    total = sum(r.offers for r in rows)
    old = sum(r.older_than_12_months for r in rows)
    undated = sum(r.undated for r in rows)
    console.print(t("prices.age.summary", total=total, old=old, undated=undated))


def _date(value: dt.date | None) -> str:
    return value.isoformat() if value is not None else "—"
