"""The user's own prices (a console price list, a reseller's quote) → catalog offers (pure).

Columns (CSV header, JSON keys, or keys of `[[quote]]` tables in TOML), documented in
docs/catalog-format.md ("Your own quotes"):

    provider, instance, gpu, gpu_count, billing, price, per, currency, date, region, note,
    vcpu, ram_gb, provider_name

`provider`, `instance`, `gpu`, `billing`, `price` are required; `gpu_count` defaults to 1,
`per` to hour (month for monthly, year for yearly billing), `date` (the day the price was
quoted) to nothing ("date unknown"). Chinese console headers are accepted too
(厂商, 实例, 显卡, 卡数, 计费方式, 价格, 单位, 币种, 日期, 地域, 备注). A bad row is one error
naming its line.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import re
from dataclasses import dataclass
from typing import Any

from gpuwise.catalog.catalog import Catalog
from gpuwise.catalog.names import normalize
from gpuwise.catalog.schema_cloud import BILLINGS
from gpuwise.errors import UserError

REQUIRED = ("provider", "instance", "gpu", "billing", "price")
COLUMNS = (
    *REQUIRED,
    "gpu_count",
    "per",
    "currency",
    "date",
    "region",
    "note",
    "vcpu",
    "ram_gb",
    "provider_name",
)
HEADER_ALIASES = {
    "厂商": "provider",
    "云厂商": "provider",
    "实例": "instance",
    "实例规格": "instance",
    "规格": "instance",
    "显卡": "gpu",
    "gpu型号": "gpu",
    "卡数": "gpu_count",
    "gpu数量": "gpu_count",
    "count": "gpu_count",
    "计费方式": "billing",
    "付费方式": "billing",
    "价格": "price",
    "单价": "price",
    "amount": "price",
    "单位": "per",
    "币种": "currency",
    "日期": "date",
    "报价日期": "date",
    "地域": "region",
    "区域": "region",
    "备注": "note",
    "cpu": "vcpu",
    "内存": "ram_gb",
    "memory_gb": "ram_gb",
}
BILLING_ALIASES = {
    "按量": "on-demand",
    "按量付费": "on-demand",
    "按需": "on-demand",
    "ondemand": "on-demand",
    "抢占式": "spot",
    "竞价": "spot",
    "竞价实例": "spot",
    "preemptible": "spot",
    "包月": "monthly",
    "包年包月": "monthly",
    "month": "monthly",
    "包年": "yearly",
    "year": "yearly",
}
PER_ALIASES = {"小时": "hour", "时": "hour", "h": "hour", "月": "month", "年": "year"}
_ID = re.compile(r"[^a-z0-9-]+")


@dataclass(frozen=True)
class Quote:
    """One validated row."""

    line: int
    provider: str
    provider_name: str
    instance: str
    gpu: str
    gpu_count: float
    billing: str
    price: float
    per: str
    currency: str | None
    date: dt.date | None
    region: str | None
    note: str
    vcpu: float | None
    ram_gb: float | None


def _where(line: int) -> str:
    """'line 4' for an imported row, the command for a quote given with flags (line 0)."""
    from gpuwise.i18n import t

    return t("prices.where_line", line=line) if line else t("prices.where_add")


def provider_id(name: str) -> str:
    """A provider id from a typed name ("Alibaba Cloud" → alibaba-cloud)."""
    return _ID.sub("-", name.strip().lower()).strip("-") or "my-provider"


def _canon(column: str) -> str:
    key = column.strip().lower().replace(" ", "_")
    return HEADER_ALIASES.get(key, HEADER_ALIASES.get(column.strip(), key))


def read_rows(text: str, fmt: str) -> list[tuple[int, dict[str, Any]]]:
    """(line, raw row) pairs of a CSV, JSON or TOML file; a file that is none of them is an
    error naming the format."""
    if fmt == "csv":
        sample = text[:4096]
        try:
            dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(sample, ",\t;")
        except csv.Error:
            dialect = csv.excel
        reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")), dialect=dialect)
        out = []
        for row in reader:
            cleaned = {_canon(k): (v or "").strip() for k, v in row.items() if k is not None}
            if any(cleaned.values()):
                out.append((reader.line_num, cleaned))
        return out
    if fmt == "json":
        data = json.loads(text)
        items = data.get("quotes", data.get("offers")) if isinstance(data, dict) else data
        if not isinstance(items, list):
            raise ValueError('expected a list of objects (or {"quotes": [...]})')
        lines = _json_object_lines(text)
        return [
            (lines[i] if i < len(lines) else 1, {_canon(k): v for k, v in item.items()})
            for i, item in enumerate(items)
            if isinstance(item, dict)
        ]
    import tomllib

    from gpuwise.catalog.sourcing import locate_line

    data = tomllib.loads(text)
    quotes = data.get("quote", [])
    return [
        (locate_line(text, "quote", i, None), {_canon(k): v for k, v in q.items()})
        for i, q in enumerate(quotes)
    ]


def _json_object_lines(text: str) -> list[int]:
    """Line of each object opened at depth 1 or 2 (a top-level list, or a list in an object)."""
    lines, depth, in_str, esc, line = [], 0, False, False, 1
    top_is_list = text.lstrip().startswith("[")
    for ch in text:
        if ch == "\n":
            line += 1
        if in_str:
            esc = not esc and ch == "\\"
            if ch == '"' and not esc:
                in_str = False
            continue
        if ch == '"':
            in_str, esc = True, False
        elif ch in "[{":
            depth += 1
            if ch == "{" and depth == (2 if top_is_list else 3):
                lines.append(line)
        elif ch in "]}":
            depth -= 1
    return lines


def _number(raw: Any, column: str, line: int) -> float:
    text = str(raw).strip().replace(",", "").replace("¥", "").replace("$", "").replace("￥", "")
    try:
        value = float(text)
    except ValueError:
        raise UserError(
            "prices.bad_row", where=_where(line), column=column, value=str(raw)
        ) from None
    if not value > 0 or value != value or value == float("inf"):
        raise UserError("prices.bad_row", where=_where(line), column=column, value=str(raw))
    return value


def _optional_number(raw: Any, column: str, line: int) -> float | None:
    return None if raw in (None, "") else _number(raw, column, line)


def _date(raw: Any, line: int) -> dt.date | None:
    if raw in (None, ""):
        return None
    if isinstance(raw, dt.date):
        return raw
    text = str(raw).strip().replace("/", "-").replace(".", "-")
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise UserError(
            "prices.bad_row", where=_where(line), column="date", value=str(raw)
        ) from None


def _choice(
    raw: Any, column: str, line: int, aliases: dict[str, str], allowed: tuple[str, ...]
) -> str:
    key = str(raw).strip().lower()
    value = aliases.get(key, aliases.get(str(raw).strip(), key))
    if value not in allowed:
        raise UserError(
            "prices.bad_choice",
            where=_where(line),
            column=column,
            value=str(raw),
            choices=", ".join(allowed),
        )
    return value


def quote_from_row(cat: Catalog, line: int, row: dict[str, Any], today: dt.date) -> Quote:
    """Validate one row: required columns, a known GPU, a billing mode, positive numbers."""
    for column in REQUIRED:
        if row.get(column) in (None, ""):
            raise UserError("prices.missing_column", where=_where(line), column=column)
    gpu_name = str(row["gpu"])
    gid = cat.gpu_index.get(normalize(gpu_name))
    if gid is None:
        raise UserError("prices.bad_gpu", where=_where(line), value=gpu_name)
    billing = _choice(row["billing"], "billing", line, BILLING_ALIASES, BILLINGS)
    default_per = {"monthly": "month", "yearly": "year"}.get(billing, "hour")  # 包月 1100: a month
    per = _choice(
        row.get("per") or default_per, "per", line, PER_ALIASES, ("hour", "month", "year")
    )
    date = _date(row.get("date"), line)
    if date is not None and date > today:
        raise UserError("prices.future_date", where=_where(line), value=date.isoformat())
    currency = str(row["currency"]).strip().upper() if row.get("currency") else None
    if currency is not None and currency not in ("CNY", "USD", "EUR"):
        raise UserError(
            "prices.bad_choice",
            where=_where(line),
            column="currency",
            value=currency,
            choices="CNY, USD, EUR",
        )
    name = str(row.get("provider_name") or row["provider"]).strip()
    return Quote(
        line=line,
        provider=provider_id(str(row["provider"])),
        provider_name=name,
        instance=str(row["instance"]).strip(),
        gpu=gid,
        gpu_count=_optional_number(row.get("gpu_count"), "gpu_count", line) or 1.0,
        billing=billing,
        price=_number(row["price"], "price", line),
        per=per,
        currency=currency,
        date=date,
        region=str(row["region"]).strip() if row.get("region") else None,
        note=str(row.get("note") or "").strip(),
        vcpu=_optional_number(row.get("vcpu"), "vcpu", line),
        ram_gb=_optional_number(row.get("ram_gb"), "ram_gb", line),
    )


def resolve_provider(cat: Catalog, q: Quote) -> str:
    """The catalog's id for a typed provider name (id, English or Chinese name), else the
    quote's own id (a provider the catalog does not know: a reseller)."""
    key = normalize(q.provider_name)
    for p in cat.providers.values():
        if key in (normalize(p.id), normalize(p.name_en), normalize(p.name_zh)):
            return p.id
    return q.provider


def check_currency(cat: Catalog, pid: str, q: Quote) -> str:
    """A quote is in its provider's currency (the catalog stores one currency per provider)."""
    known = cat.providers.get(pid)
    if known is None:
        return q.currency or "CNY"
    if q.currency and q.currency != known.currency:
        raise UserError(
            "prices.currency_mismatch",
            where=_where(q.line),
            provider=pid,
            currency=q.currency,
            expected=known.currency,
        )
    return known.currency


def offers_of(quotes: list[Quote], source_id: str) -> list[dict[str, Any]]:
    """Offer tables: rows of one instance (and region) become one offer with several prices;
    the same billing twice for one instance is an error naming both lines."""
    offers: dict[tuple[str, str | None], dict[str, Any]] = {}
    seen: dict[tuple[str, str | None, str], int] = {}
    for q in quotes:
        k = (q.instance, q.region)
        if (*k, q.billing) in seen:
            raise UserError(
                "prices.duplicate_quote",
                where=_where(q.line),
                first=seen[(*k, q.billing)],
                instance=q.instance,
                billing=q.billing,
            )
        seen[(*k, q.billing)] = q.line
        offer = offers.setdefault(
            k,
            {
                "instance": q.instance if q.region is None else _regional(q, offers),
                "gpu": q.gpu,
                "gpu_count": int(q.gpu_count) if q.gpu_count.is_integer() else q.gpu_count,
                "vcpu": q.vcpu,
                "ram_gb": q.ram_gb,
                "regions": [q.region] if q.region else [],
                "price_region": q.region,
                "source": source_id,
                "notes": q.note or None,
                "prices": [],
            },
        )
        offer["prices"].append(
            {
                "billing": q.billing,
                "amount": q.price,
                "per": q.per,
                "published": q.date,
                "note": q.note or None,
            }
        )
    return list(offers.values())


def _regional(q: Quote, offers: dict[tuple[str, str | None], dict[str, Any]]) -> str:
    """The plain instance name for its first region, `name (region)` for the others."""
    taken = {o["instance"] for o in offers.values()}
    return q.instance if q.instance not in taken else f"{q.instance} ({q.region})"
