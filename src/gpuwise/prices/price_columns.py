"""Price lists that give each billing mode its own column (pure): console and doc tables.

Chinese clouds publish and export price tables one instance per line with a column per billing
mode — Tencent's 价格总览 has `包年包月（元/月）` and `按量计费（元/小时）`, JD Cloud's price
overview `Monthly Price (RMB)` and `Price by Configuration (RMB/hour)`, Compshare's 计费概览
`按量` and `包月`. Such a header names the billing mode, and its brackets the unit and the
currency, so a row is read as one quote per filled price column: the header is the alias of
(billing, period, currency). A unit gpuwise cannot store (元/分钟, 元/天) makes the column
unknown rather than guessed, so a per-minute price is never read as a per-hour one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_BILLING_WORDS = {
    "按量": "on-demand", "按量计费": "on-demand", "按量付费": "on-demand", "按需": "on-demand",
    "按需计费": "on-demand", "按配置计费": "on-demand", "后付费": "on-demand",
    "price by configuration": "on-demand", "on-demand": "on-demand", "on demand": "on-demand",
    "pay-as-you-go": "on-demand",
    "抢占式": "spot", "抢占式实例": "spot", "抢占实例": "spot", "竞价": "spot", "竞价实例": "spot",
    "竞价计费": "spot", "spot": "spot",
    "包月": "monthly", "包年包月": "monthly", "monthly": "monthly",
    "包年": "yearly", "yearly": "yearly", "annual": "yearly",
}  # fmt: skip
"""Header words naming a billing mode (with or without 价格/单价/价/price after them)."""

_PRICE_WORDS = ("价格", "单价", "价", " price", "price")
_UNIT_PERIODS = (
    (("分钟", "minute", "min", "天", "day", "周", "week"), None),
    (("小时", "/时", "hour", "/h", "/hr"), "hour"),
    (("月", "month", "/mo"), "month"),
    (("年", "year", "/yr"), "year"),
)
"""A bracket's period by its first matching words; None: a period a quote cannot hold."""
_UNIT_CURRENCIES = (
    ("元", "CNY"), ("rmb", "CNY"), ("cny", "CNY"), ("¥", "CNY"),
    ("美元", "USD"), ("usd", "USD"), ("$", "USD"), ("eur", "EUR"), ("€", "EUR"),
)  # fmt: skip
_HEADER = re.compile(r"^(?P<word>[^()]+?)\s*(?:\((?P<unit>[^()]*)\))?$")


@dataclass(frozen=True)
class PriceColumn:
    """What a price column's header says about the prices under it."""

    billing: str
    per: str | None
    currency: str | None


def price_column(key: str) -> PriceColumn | None:
    """The billing mode, period and currency a header names (`按量计费（元/小时）`,
    `monthly_price_(rmb)` as csv reading folds it), or None for any other column."""
    text = key.replace("（", "(").replace("）", ")").replace("_", " ").strip().lower()
    match = _HEADER.match(text)
    if match is None:
        return None
    billing = _billing(match["word"].strip())
    unit = (match["unit"] or "").replace(" ", "")
    if billing is None:
        return None
    per = _period(unit) if unit else None
    if unit and per is None and _names_a_period(unit):
        return None  # 元/分钟, 元/天: not a period a quote holds
    currency = next((c for word, c in _UNIT_CURRENCIES if word in unit), None)
    return PriceColumn(billing, per, currency)


def _billing(word: str) -> str | None:
    if word in _BILLING_WORDS:
        return _BILLING_WORDS[word]
    for tail in _PRICE_WORDS:
        if word.endswith(tail) and word[: -len(tail)].strip() in _BILLING_WORDS:
            return _BILLING_WORDS[word[: -len(tail)].strip()]
    return None


def _period(unit: str) -> str | None:
    return next((per for words, per in _UNIT_PERIODS if any(w in unit for w in words)), None)


def _names_a_period(unit: str) -> bool:
    return any(w in unit for words, _ in _UNIT_PERIODS for w in words)


def expand(row: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per filled price column, each with its billing, period and currency; a row
    with a plain `price` column (or no price column) is returned as it is."""
    columns = {k: c for k in row if (c := price_column(k)) is not None}
    if not columns or row.get("price") not in (None, ""):
        return [row]
    base = {k: v for k, v in row.items() if k not in columns}
    out = []
    for key, column in columns.items():
        if row[key] in (None, ""):
            continue  # no spot price on this line, say
        quote = {**base, "billing": column.billing, "price": row[key]}
        if column.per and not base.get("per"):
            quote["per"] = column.per
        if column.currency and not base.get("currency"):
            quote["currency"] = column.currency
        out.append(quote)
    return out or [base]
