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
from gpuwise.separators import DecimalMark

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
KNOWN_COLUMNS = frozenset(
    {
        "provider", "instance", "gpu", "billing", "price", "gpu_count", "per", "currency",
        "date", "region", "note", "vcpu", "ram_gb", "provider_name",
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
    key = column.strip().lower().replace(" ", "_")
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
            (locate_line(text, "quote", i, None), {canon(k): v for k, v in q.items()})
            for i, q in enumerate(quotes)
        ]
    )


def delimiter(header: str) -> str:
    """The separator that splits the header into the most known column names (`,` on a tie);
    a header with none of them falls back to csv.Sniffer."""
    scores = {d: sum(canon(c) in KNOWN_COLUMNS for c in header.split(d)) for d in (",", ";", "\t")}
    best = max(scores, key=lambda d: scores[d])
    if scores[best]:
        return best
    try:
        return csv.Sniffer().sniff(header, ",\t;").delimiter
    except csv.Error:
        return ","


def _csv_rows(text: str) -> Rows:
    text = text.lstrip("\ufeff")
    sep = delimiter(text.split("\n", 1)[0])
    reader = csv.DictReader(io.StringIO(text), delimiter=sep)
    out = []
    for row in reader:
        cleaned = {canon(k): (v or "").strip() for k, v in row.items() if isinstance(k, str)}
        if any(cleaned.values()):
            out.append((reader.line_num, cleaned))
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
        (lines[i] if i < len(lines) else 1, {canon(k): v for k, v in item.items()})
        for i, item in enumerate(items)
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
