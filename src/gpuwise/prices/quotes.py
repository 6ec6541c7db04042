"""The user's own prices (a console price list, a reseller's quote) → catalog offers (pure).

Columns (CSV header, JSON keys, or keys of `[[quote]]` tables in TOML; read by quote_rows.py),
documented in docs/catalog-format.md ("Your own quotes"):

    provider, instance, gpu, gpu_count, billing, price, per, currency, date, region, note,
    vcpu, ram_gb, network_gbps, provider_name

`provider`, `instance`, `gpu`, `billing`, `price` are required; `gpu_count` defaults to 1,
`per` to hour (month for monthly, year for yearly billing), `date` (the day the price was
quoted) to nothing ("date unknown"). Chinese console headers are accepted too
(厂商, 实例, 显卡, 卡数, 计费方式, 价格, 单位, 币种, 日期, 地域, 备注). A bad row is one error
naming its line.

What the user gives is kept as given (review 3): the provider is resolved by its names in
either language (catalog/providers.py) and an unknown one is refused unless the user says it
is new; the price is read by gpuwise.units with the file's decimal mark, and its currency —
from a mark (`$8`, `8元`, `8 RMB`) or the currency column — is kept even where the provider
usually prices in another (the caller says so; the amount is converted only where compared).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from dataclasses import dataclass
from typing import Any

from gpuwise import units
from gpuwise.catalog.catalog import Catalog
from gpuwise.catalog.names import normalize
from gpuwise.catalog.schema_cloud import BILLINGS
from gpuwise.errors import UserError
from gpuwise.prices.quote_rows import read_rows  # noqa: F401  (re-exported)
from gpuwise.separators import DecimalMark

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
    "network_gbps",
    "provider_name",
)
BILLING_ALIASES = {
    "按量": "on-demand",
    "按量付费": "on-demand",
    "按量计费": "on-demand",
    "按需": "on-demand",
    "按需计费": "on-demand",
    "按配置计费": "on-demand",
    "按时": "on-demand",
    "按小时": "on-demand",
    "后付费": "on-demand",
    "ondemand": "on-demand",
    "payg": "on-demand",
    "pay-as-you-go": "on-demand",
    "postpaid": "on-demand",
    "postpaid_by_hour": "on-demand",
    "抢占式": "spot",
    "抢占式实例": "spot",
    "抢占实例": "spot",
    "竞价": "spot",
    "竞价实例": "spot",
    "竞价计费": "spot",
    "preemptible": "spot",
    "spotpaid": "spot",
    "包月": "monthly",
    "包年包月": "monthly",
    "按月": "monthly",
    "月付": "monthly",
    "month": "monthly",
    "包年": "yearly",
    "按年": "yearly",
    "年付": "yearly",
    "year": "yearly",
}
"""Billing modes as consoles write them: 阿里云 按量付费 / 抢占式实例 / 包年包月, 腾讯云 按量计费 /
竞价实例 (API POSTPAID_BY_HOUR, SPOTPAID), 华为云 按需计费 / 竞价计费, 京东云 按配置计费, UCloud
按时 / 按月 / 按年, AutoDL 按量. Ambiguous ones (预付费, 包年/包月 without a period) are refused
with the choices rather than guessed."""
PER_ALIASES = {
    "小时": "hour", "时": "hour", "h": "hour", "元/小时": "hour", "元/时": "hour",
    "月": "month", "元/月": "month", "年": "year", "元/年": "year",
}  # fmt: skip
_ID = re.compile(r"[^a-z0-9-]+")


@dataclass(frozen=True)
class Quote:
    """One validated row."""

    line: int
    provider: str
    """The catalog id it was resolved to, or a new id (`new_provider`)."""
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
    network_gbps: float | None = None
    """The instance's network to other instances (Gb/s over all its NICs: an RDMA cluster's
    InfiniBand or RoCE), as quoted; the plan times a job across machines on it."""
    new_provider: bool = False
    """A provider the catalog does not list, recorded on the user's word (`--new-provider`)."""


def _where(line: int) -> str:
    """'line 4' for an imported row, the command for a quote given with flags (line 0)."""
    from gpuwise.i18n import t

    return t("prices.where_line", line=line) if line else t("prices.where_add")


def new_provider_id(name: str) -> str:
    """An id for a provider the catalog does not list: "Friend's GPUs" → friend-s-gpus; a name
    without Latin letters (某某算力) gets `provider-` and a short digest of the name, so two
    such names never share an id."""
    from gpuwise.catalog.providers import provider_key

    slug = _ID.sub("-", name.strip().lower()).strip("-")
    digest = hashlib.sha1(provider_key(name).encode("utf-8")).hexdigest()[:8]
    return slug if slug else f"provider-{digest}"


def _provider(cat: Catalog, name: str, line: int, new: bool) -> tuple[str, bool]:
    """(provider id, is new): a listed provider by any of its names; an unknown name is an
    error with the nearest providers unless the user said it is new."""
    from gpuwise.catalog.providers import resolve, unknown

    index = _provider_index(cat)
    found = resolve(index, name)
    if found is not None:
        return found, False
    if not new:
        err = unknown(cat.providers, index, name)
        raise UserError("prices.unknown_provider", where=_where(line), problem=err.render())
    return new_provider_id(name), True


_INDEXES: dict[int, tuple[Catalog, dict[str, str]]] = {}


def _provider_index(cat: Catalog) -> dict[str, str]:
    """The provider-name index of a catalog, built once (an import reads thousands of rows)."""
    from gpuwise.catalog.providers import provider_index

    held = _INDEXES.get(id(cat))
    if held is None or held[0] is not cat:
        _INDEXES.clear()
        held = (cat, provider_index(cat.providers.values())[0])
        _INDEXES[id(cat)] = held
    return held[1]


def _flag(line: int, column: str) -> str:
    """How a units error names the cell: `line 4: price`, or `--price` for `offers add`."""
    return f"{_where(line)}: {column}" if line else f"--{column.replace('_', '-')}"


def _number(raw: Any, column: str, line: int, decimal: DecimalMark) -> float:
    """A positive plain number (counts, vCPUs, GB), with the file's decimal mark."""
    value = units.read(raw, "catalog_price", _flag(line, column), decimal).value
    if not value > 0:
        raise UserError("prices.bad_row", where=_where(line), column=column, value=str(raw))
    return value


def _optional_number(raw: Any, column: str, line: int, decimal: DecimalMark) -> float | None:
    return None if raw in (None, "") else _number(raw, column, line, decimal)


def _date(raw: Any, line: int) -> dt.date | None:
    if raw in (None, ""):
        return None
    if isinstance(raw, dt.date):
        return raw
    text = str(raw).strip().replace("/", "-").replace(".", "-")
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise UserError("prices.bad_quote_date", where=_where(line), value=str(raw)) from None


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


def quote_from_row(
    cat: Catalog,
    line: int,
    row: dict[str, Any],
    today: dt.date,
    decimal: DecimalMark = ".",
    new_provider: bool = False,
) -> Quote:
    """Validate one row: required columns, a known provider and GPU, a billing mode, a price
    with its currency and period as written, positive numbers, a date not in the future."""
    for column in REQUIRED:
        if row.get(column) in (None, ""):
            raise UserError("prices.missing_column", where=_where(line), column=column)
    _no_formulas(row, line)
    gpu_name = str(row["gpu"])
    gid = cat.gpu_index.get(normalize(gpu_name))
    if gid is None:
        raise UserError("prices.bad_gpu", where=_where(line), value=gpu_name)
    billing = _choice(row["billing"], "billing", line, BILLING_ALIASES, BILLINGS)
    price, currency, per = _price(row, line, billing, decimal)
    date = _date(row.get("date"), line)
    if date is not None and date > today:
        raise UserError("prices.future_date", where=_where(line), value=date.isoformat())
    typed = str(row["provider"]).strip()
    pid, is_new = _provider(cat, typed, line, new_provider)
    return Quote(
        line=line,
        provider=pid,
        provider_name=str(row.get("provider_name") or typed).strip(),
        instance=str(row["instance"]).strip(),
        gpu=gid,
        gpu_count=_optional_number(row.get("gpu_count"), "gpu_count", line, decimal) or 1.0,
        billing=billing,
        price=price,
        per=per,
        currency=currency,
        date=date,
        region=str(row["region"]).strip() if row.get("region") else None,
        note=str(row.get("note") or "").strip(),
        vcpu=_optional_number(row.get("vcpu"), "vcpu", line, decimal),
        ram_gb=_optional_number(row.get("ram_gb"), "ram_gb", line, decimal),
        network_gbps=_optional_number(row.get("network_gbps"), "network_gbps", line, decimal),
        new_provider=is_new,
    )


_FORMULA = re.compile(r"^\s*(=|@|[+\-][^\d\s.,])")
"""A cell a spreadsheet would run (`=cmd|' /c calc'!A1`, `@SUM(…)`, `+A1`): a copied formula,
not a name."""


def _no_formulas(row: dict[str, Any], line: int) -> None:
    """Text columns holding a spreadsheet formula are refused (review 3, map-formula: one was
    stored as a provider name): the sheet was exported with formulas instead of values."""
    for column in ("provider", "provider_name", "instance", "region", "note"):
        value = row.get(column)
        if isinstance(value, str) and _FORMULA.match(value):
            raise UserError("prices.formula", where=_where(line), column=column, value=value)


def _price(
    row: dict[str, Any], line: int, billing: str, decimal: DecimalMark
) -> tuple[float, str | None, str]:
    """(amount, currency or None, period): the price cell read by gpuwise.units (`$8`,
    `8 USD/h`, `1500元`, `1 500,00`), agreeing with the currency and per columns when given."""
    raw = row["price"]
    parsed = units.read(raw, "quote_price", _flag(line, "price"), decimal)
    column = str(row["currency"]).strip().upper() if row.get("currency") else None
    if column is not None and column not in ("CNY", "USD", "EUR"):
        raise UserError(
            "prices.bad_choice",
            where=_where(line),
            column="currency",
            value=column,
            choices="CNY, USD, EUR",
        )
    if parsed.currency and column and parsed.currency != column:
        raise UserError(
            "prices.two_currencies", where=_where(line), value=str(raw), typed=parsed.currency,
            given=column,
        )  # fmt: skip
    default_per = {"monthly": "month", "yearly": "year"}.get(billing, "hour")  # 包月 1100: a month
    given_per = row.get("per")
    per = _choice(
        given_per or parsed.per or default_per, "per", line, PER_ALIASES, ("hour", "month", "year")
    )
    if given_per and parsed.per and parsed.per != per:
        raise UserError(
            "prices.two_periods", where=_where(line), value=str(raw), typed=parsed.per, given=per
        )
    return parsed.value, parsed.currency or column, per


def provider_currency(cat: Catalog, pid: str, quotes: list[Quote]) -> str:
    """The currency a provider usually prices in: the catalog's, or for a new provider the
    currency of its first quote (CNY when none is given)."""
    known = cat.providers.get(pid)
    if known is not None:
        return str(known.currency)
    return next((q.currency for q in quotes if q.currency), "CNY")


def offers_of(quotes: list[Quote], source_id: str, currency: str = "CNY") -> list[dict[str, Any]]:
    """Offer tables: rows of one instance (and region) become one offer with several prices;
    the same billing twice for one instance is an error naming both lines. A price in another
    currency than the provider's (`currency`) says its own."""
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
                "network_gbps": q.network_gbps,
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
                "currency": q.currency if q.currency not in (None, currency) else None,
            }
        )
    return list(offers.values())


def _regional(q: Quote, offers: dict[tuple[str, str | None], dict[str, Any]]) -> str:
    """The plain instance name for its first region, `name (region)` for the others."""
    taken = {o["instance"] for o in offers.values()}
    return q.instance if q.instance not in taken else f"{q.instance} ({q.region})"
