"""The rows of a price list the user imports (CSV/TSV, JSON or TOML), before validation.

A CSV's separator decides how its numbers are read: Excel in a European locale writes `;`
between columns and a comma for decimals, so `1,98` in a semicolon file is 1.98 (review 3,
oi-semicolon: it was stored as 198). The separator is taken from the header line — the column
names contain no digits, so a decimal comma cannot fool it — and the decimal mark follows from
it (gpuwise.separators). JSON goes through gpuwise.userfiles, so a 100 000-deep nesting or a
duplicated key is one clear line, never a RecursionError.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpuwise.errors import UserError
from gpuwise.prices.price_columns import expand, price_column
from gpuwise.separators import DecimalMark

HEADER_ALIASES = {
    "厂商": "provider",
    "云厂商": "provider",
    "实例": "instance",
    "实例规格": "instance",
    "实例规格名称": "instance",
    "实例类型": "instance",
    "规格": "instance",
    "规格名称": "instance",
    "机型": "instance",
    "机型规格": "instance",
    "instance_type": "instance",
    "flavor": "instance",
    "显卡": "gpu",
    "显卡型号": "gpu",
    "gpu型号": "gpu",
    "gpu_型号": "gpu",
    "gpu类型": "gpu",
    "gpu_类型": "gpu",
    "gpu卡型": "gpu",
    "卡型": "gpu",
    "gpu_type": "gpu",
    "gpu_model": "gpu",
    "卡数": "gpu_count",
    "卡数量": "gpu_count",
    "gpu数量": "gpu_count",
    "gpu_数量": "gpu_count",
    "gpu数": "gpu_count",
    "gpu卡数": "gpu_count",
    "gpu个数": "gpu_count",
    "显卡数量": "gpu_count",
    "gpu_num": "gpu_count",
    "count": "gpu_count",
    "计费方式": "billing",
    "计费模式": "billing",
    "计费类型": "billing",
    "付费方式": "billing",
    "付费类型": "billing",
    "付费模式": "billing",
    "billing_mode": "billing",
    "charge_type": "billing",
    "价格": "price",
    "单价": "price",
    "官网价": "price",
    "刊例价": "price",
    "目录价": "price",
    "list_price": "price",
    "amount": "price",
    "单位": "per",
    "计价单位": "per",
    "价格单位": "per",
    "单价单位": "per",
    "官网价单位": "per",
    "币种": "currency",
    "货币": "currency",
    "日期": "date",
    "报价日期": "date",
    "询价日期": "date",
    "查询日期": "date",
    "地域": "region",
    "地域名称": "region",
    "区域": "region",
    "region_id": "region",
    "备注": "note",
    "说明": "note",
    "remarks": "note",
    "cpu": "vcpu",
    "vcpu(核)": "vcpu",
    "cpu(核)": "vcpu",
    "cpu核数": "vcpu",
    "cpu_(core)": "vcpu",
    "内存": "ram_gb",
    "内存(gb)": "ram_gb",
    "内存大小": "ram_gb",
    "内存大小(gb)": "ram_gb",
    "memory_gb": "ram_gb",
    "memory_(gb)": "ram_gb",
    "rdma网络(gbps)": "network_gbps",
    "rdma带宽(gbps)": "network_gbps",
    "network_(gbps)": "network_gbps",
}
"""Column names as consoles and price pages write them, in Chinese and English (阿里云 实例规格 /
付费类型 / 官网价, 腾讯云 机型 / 计费模式, 华为云 规格名称, JD Cloud `Instance Type`, `CPU (Core)`,
`Memory (GB)`), folded by :func:`canon`; a column that prices one billing mode
(`按量计费（元/小时）`, `Monthly Price (RMB)`) is read by gpuwise.prices.price_columns."""
KNOWN_COLUMNS = frozenset(
    {
        "provider", "instance", "gpu", "billing", "price", "gpu_count", "per", "currency",
        "date", "region", "note", "vcpu", "ram_gb", "network_gbps", "provider_name",
    }
)  # fmt: skip
_DECIMAL_OF: dict[str, DecimalMark] = {",": ".", ";": ",", "\t": "?"}
"""A file's decimal mark from its separator: `;` files come from comma-decimal locales, tabs
from either (so a lone mark followed by three digits is ambiguous there)."""


@dataclass(frozen=True)
class Rows:
    """(line, raw row) pairs and the decimal mark their text numbers are read with."""

    rows: list[tuple[int, dict[str, Any]]]
    decimal: DecimalMark = "."


def canon(column: str) -> str:
    """A column name as gpuwise knows it (case, spaces and Chinese console headers folded)."""
    key = column.strip().lower().replace("（", "(").replace("）", ")").replace(" ", "_")
    return HEADER_ALIASES.get(key, HEADER_ALIASES.get(column.strip(), key))


def read_rows(text: str, fmt: str, path: Path | None = None) -> Rows:
    """The rows of a CSV, JSON or TOML price list; a file that is not one is one UserError
    line naming it (syntax, nesting, duplicate keys: gpuwise.userfiles)."""
    if fmt == "csv":
        return _csv_rows(text)
    path = path or Path(f"quotes.{fmt}")
    if fmt == "json":
        return Rows(_json_rows(text, path))
    from gpuwise.catalog.sourcing import locate_line
    from gpuwise.userfiles import parse

    quotes = parse(text, path, "toml").get("quote", [])
    if not isinstance(quotes, list) or not all(isinstance(q, dict) for q in quotes):
        raise UserError("prices.not_objects", path=str(path), format="TOML")
    return Rows(
        [
            (locate_line(text, "quote", i, None), row)
            for i, q in enumerate(quotes)
            for row in expand({canon(k): v for k, v in q.items()})
        ]
    )


def delimiter(header: str) -> str:
    """The separator that splits the header into the most known column names (`,` on a tie);
    a header with none of them falls back to csv.Sniffer."""
    scores = {d: sum(_known(c) for c in header.split(d)) for d in (",", ";", "\t")}
    best = max(scores, key=lambda d: scores[d])
    if scores[best]:
        return best
    try:
        return csv.Sniffer().sniff(header, ",\t;").delimiter
    except csv.Error:
        return ","


def _known(column: str) -> bool:
    """A column gpuwise reads: a known name, or a billing mode's price column
    (按量计费（元/小时）)."""
    key = canon(column)
    return key in KNOWN_COLUMNS or price_column(key) is not None


def _csv_rows(text: str) -> Rows:
    text = text.lstrip("\ufeff")
    sep = delimiter(text.split("\n", 1)[0])
    reader = csv.DictReader(io.StringIO(text), delimiter=sep)
    out = []
    for row in reader:
        cleaned = {canon(k): (v or "").strip() for k, v in row.items() if isinstance(k, str)}
        if any(cleaned.values()):
            out += [(reader.line_num, quote) for quote in expand(cleaned)]
    return Rows(out, _DECIMAL_OF.get(sep, "."))


def _json_rows(text: str, path: Path) -> list[tuple[int, dict[str, Any]]]:
    """Rows of a JSON list of objects (or {"quotes": [...]}); anything else says what it is."""
    from gpuwise.userfiles import parse

    data = parse(text, path, "json")  # depth, duplicate keys: one line each
    items = data.get("quotes", data.get("offers")) if isinstance(data, dict) else data
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise UserError("prices.not_objects", path=str(path), format="JSON")
    lines = _json_object_lines(text)
    return [
        (lines[i] if i < len(lines) else 1, row)
        for i, item in enumerate(items)
        for row in expand({canon(k): v for k, v in item.items()})
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
