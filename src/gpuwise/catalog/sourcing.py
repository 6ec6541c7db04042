"""Lift per-number sources out of raw TOML entries, and find where a field sits in a file.

A number in the catalog is either plain (covered by its entry's default `source`) or an inline
table `{ value = …, source = "…", note = "…" }`. :func:`lift_sources` turns the latter into the
plain value and records `field path → source id`, so the typed models stay simple while every
number keeps its provenance.
"""

from __future__ import annotations

import re
from typing import Any

_SOURCED_KEYS = {"value", "source", "note"}


def is_sourced_number(value: object) -> bool:
    """True for `{value = <number, flag, date, text or a list of them>, source = …}` inline
    tables (a list of tables is an array of entries, walked instead)."""
    if not (isinstance(value, dict) and "value" in value and set(value) <= _SOURCED_KEYS):
        return False
    inner = value["value"]
    if isinstance(inner, list):
        return not any(isinstance(v, dict | list) for v in inner)
    return not isinstance(inner, dict)


def lift_sources(entry: dict[str, Any], prefix: str = "") -> tuple[dict[str, Any], dict[str, str]]:
    """Return the entry with inline sourced numbers flattened, and their field → source map.

    Nested tables (e.g. `tflops`) and arrays of tables (e.g. `prices`) are walked too; their
    paths read `tflops.bf16` and `prices[0].amount`.
    """
    flat: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for key, value in entry.items():
        path = f"{prefix}{key}"
        if is_sourced_number(value):
            flat[key] = value["value"]
            if "source" in value:
                sources[path] = value["source"]
        elif isinstance(value, dict):
            inner, inner_sources = lift_sources(value, path + ".")
            flat[key] = inner
            sources.update(inner_sources)
        elif isinstance(value, list) and any(isinstance(v, dict) for v in value):
            items = []
            for i, item in enumerate(value):
                if isinstance(item, dict):
                    inner, inner_sources = lift_sources(item, f"{path}[{i}].")
                    items.append(inner)
                    sources.update(inner_sources)
                else:
                    items.append(item)
            flat[key] = items
        else:
            flat[key] = value
    return flat, sources


def locate_line(text: str, array: str, index: int, field: str | None) -> int:
    """1-based line of `field` inside the `index`-th `[[array]]` table of a TOML text.

    Falls back to the table's header line (or 1) when the field is not written there, e.g. when
    it is missing. Good enough to point a person at the right place in their file.
    """
    lines = text.splitlines()
    header = re.compile(rf"^\s*\[\[\s*{re.escape(array)}\s*\]\]")
    starts = [i for i, line in enumerate(lines) if header.match(line)]
    if index >= len(starts):
        single = re.compile(rf"^\s*\[\s*{re.escape(array)}\s*\]")
        starts = [i for i, line in enumerate(lines) if single.match(line)][:1]
        index = 0
    if not starts:
        return 1
    start = starts[index]
    end = starts[index + 1] if index + 1 < len(starts) else len(lines)
    if field:
        parts = field.split(".")
        key = re.compile(
            rf"^\s*{re.escape(parts[-1])}\s*=|^\s*\[\[?\s*{re.escape(array)}\.{re.escape(parts[0])}"
        )
        for i in range(start, end):
            if key.match(lines[i]):
                return i + 1
    return start + 1


def flatten_source_tables(table: dict[str, Any], prefix: str = "") -> dict[str, dict[str, Any]]:
    """`[sources.hf-llama-3.1-8b]` parses as nested tables (TOML splits on the dot): join them back.

    A table with a `url` key is a source; anything else is a level of a dotted id.
    """
    out: dict[str, dict[str, Any]] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if (
            isinstance(value, dict)
            and "url" not in value
            and all(isinstance(v, dict) for v in value.values())
            and value
        ):
            out.update(flatten_source_tables(value, name + "."))
        else:
            out[name] = value if isinstance(value, dict) else {"url": value}
    return out
