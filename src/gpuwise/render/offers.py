"""The table of `gpuwise offers`: cheapest per GPU-hour first, every price with its date."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich import box
from rich.table import Table

from gpuwise.i18n import get_lang, t
from gpuwise.render.out import fmt_num


def price_text(amount: float, currency: str, per: str) -> str:
    """'1.66 CNY/hour' style text of a native price."""
    return f"{fmt_num(amount, 2)} {currency}/{t('per.' + per)}"


def date_text(date: str | None, stale: bool) -> str:
    """A price's date, with the stale mark when it is older than the limit."""
    text = date or t("cost.undated")
    return f"{text} {t('cost.stale_mark')}" if stale else text


def offers_table(rows: Sequence[dict[str, Any]], currency: str) -> Table:
    """Provider, instance, GPU × count, billing, native price, per GPU-hour, date."""
    table = Table(
        title=t("offers.title", n=len(rows), currency=currency),
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for key, justify in (
        ("offers.col_provider", "left"),
        ("offers.col_instance", "left"),
        ("offers.col_gpu", "left"),
        ("offers.col_billing", "left"),
        ("offers.col_price", "right"),
        ("offers.col_per_gpu_hour", "right"),
        ("offers.col_date", "left"),
    ):
        table.add_column(t(key, currency=currency), justify=justify)  # type: ignore[arg-type]
    lang = get_lang()
    for r in rows:
        price = r["price"]
        count = r["gpu_count"]
        table.add_row(
            r["provider_name"][lang],
            r["instance"],
            f"{r['gpu']} ×{fmt_num(count, 2) if count % 1 else int(count)}",
            t("billing." + r["billing"]),
            price_text(price["amount"], price["currency"], price["per"]),
            fmt_num(r["per_gpu_hour"], 2),
            date_text(r["date"], r["stale"]),
        )
    return table
