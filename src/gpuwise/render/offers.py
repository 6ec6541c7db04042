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


def legend_lines(rows: Sequence[dict[str, Any]], always: bool = False) -> list[str]:
    """What the marks in a list of dated prices mean (only the marks that appear; the stale
    legend `always` when asked)."""
    lines = []
    if always or any(r.get("stale") for r in rows):
        lines.append(t("cost.stale_legend"))
    if any(r.get("undated") or r.get("date") is None for r in rows):
        lines.append(t("prices.undated_legend"))
    if any(r.get("origin") == "user" for r in rows):
        lines.append(t("prices.quote_legend"))
    return lines


def light_table(
    title: str, headers: Sequence[str], right: Sequence[bool], rows: Sequence[Sequence[str]]
) -> Text:
    """The plain table as a rich Text (see light_lines)."""
    return Text(light_lines(title, headers, right, rows))


def light_lines(
    title: str, headers: Sequence[str], right: Sequence[bool], rows: Sequence[Sequence[str]]
) -> str:
    """A plain table (title, header, rule, rows) as one string.

    rich's Table lays out every cell through its wrapping machinery, which costs about 0.1 s
    for the few hundred offers of a full listing; these cells never wrap, so widths are just
    the longest cell (in terminal cells, so Chinese counts double).
    """

    def size(cell: str) -> int:
        return len(cell) if cell.isascii() else cell_len(cell)

    sizes = [[size(c) for c in r] for r in rows]  # once per cell: 10,000-row listings stay fast
    head = [size(h) for h in headers]
    widths = [max([head[i], *(s[i] for s in sizes)]) for i in range(len(headers))]

    def line(cells: Sequence[str], lengths: Sequence[int]) -> str:
        out = []
        for cell, n, width, r in zip(cells, lengths, widths, right, strict=True):
            pad = " " * (width - n)
            out.append(pad + cell if r else cell + pad)
        return "  " + "   ".join(out).rstrip()

    rule = " " + "─" * (sum(widths) + 3 * (len(widths) - 1) + 2)
    body = [line(r, s) for r, s in zip(rows, sizes, strict=True)]
    return "\n".join([title, "", line(headers, head), rule, *body, ""])


def offers_table(rows: Sequence[dict[str, Any]], currency: str) -> Text:
    """Provider, instance, GPU × count, billing, native price, per GPU-hour, date."""
    return Text(offers_text(rows, currency))


def offers_text(rows: Sequence[dict[str, Any]], currency: str) -> str:
    """The offers table as plain text (no styles: 10,000 rows are written directly)."""
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
        name = r["provider_name"][lang]
        if r.get("origin") == "user":
            name = f"{name} {t('prices.quote_mark')}"
        cells.append(
            (
                name,
                r["instance"],
                f"{r['gpu']} ×{fmt_num(count, 2) if count % 1 else int(count)}",
                t("billing." + r["billing"]),
                price_text(price["amount"], price["currency"], price["per"]),
                fmt_num(r["per_gpu_hour"], 2),
                date_text(r["date"], r["stale"]),
            )
        )
    return light_lines(
        t("offers.title", n=len(rows), currency=currency),
        [t(k, currency=currency) for k, _ in keys],
        [r for _, r in keys],
        cells,
    )
