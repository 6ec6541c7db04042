"""The table of `gpuwise offers`: cheapest per GPU-hour first, every price with its date."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len
from rich.text import Text

from gpuwise.i18n import get_lang, t
from gpuwise.render.out import fmt_num


def price_text(amount: float, currency: str, per: str) -> str:
    """'1.66 CNY/hour' style text of a native price."""
    return f"{fmt_num(amount, 2)} {currency}/{t('per.' + per)}"


def date_text(date: str | None, stale: bool) -> str:
    """A price's date, with the stale mark when it is older than the limit."""
    text = date or t("cost.undated")
    return f"{text} {t('cost.stale_mark')}" if stale else text


def light_table(
    title: str, headers: Sequence[str], right: Sequence[bool], rows: Sequence[Sequence[str]]
) -> Text:
    """A plain table (title, header, rule, rows) as one Text.

    rich's Table lays out every cell through its wrapping machinery, which costs about 0.1 s
    for the few hundred offers of a full listing; these cells never wrap, so widths are just
    the longest cell (in terminal cells, so Chinese counts double).
    """
    widths = [max([cell_len(h), *(cell_len(r[i]) for r in rows)]) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        out = []
        for cell, width, r in zip(cells, widths, right, strict=True):
            pad = " " * (width - cell_len(cell))
            out.append(pad + cell if r else cell + pad)
        return "  " + "   ".join(out).rstrip()

    rule = " " + "─" * (sum(widths) + 3 * (len(widths) - 1) + 2)
    body = [line(r) for r in rows]
    return Text("\n".join([title, "", line(headers), rule, *body, ""]))


def offers_table(rows: Sequence[dict[str, Any]], currency: str) -> Text:
    """Provider, instance, GPU × count, billing, native price, per GPU-hour, date."""
    keys = (
        ("offers.col_provider", False),
        ("offers.col_instance", False),
        ("offers.col_gpu", False),
        ("offers.col_billing", False),
        ("offers.col_price", True),
        ("offers.col_per_gpu_hour", True),
        ("offers.col_date", False),
    )
    lang = get_lang()
    cells = []
    for r in rows:
        price = r["price"]
        count = r["gpu_count"]
        cells.append(
            (
                r["provider_name"][lang],
                r["instance"],
                f"{r['gpu']} ×{fmt_num(count, 2) if count % 1 else int(count)}",
                t("billing." + r["billing"]),
                price_text(price["amount"], price["currency"], price["per"]),
                fmt_num(r["per_gpu_hour"], 2),
                date_text(r["date"], r["stale"]),
            )
        )
    return light_table(
        t("offers.title", n=len(rows), currency=currency),
        [t(k, currency=currency) for k, _ in keys],
        [r for _, r in keys],
        cells,
    )
