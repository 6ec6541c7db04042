"""Write catalog-format TOML (docs/catalog-format.md) from plain data (pure).

Only what catalog files use: strings, numbers, booleans, dates, arrays of those, tables and
arrays of tables. Keys are written bare when they can be, quoted otherwise.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from typing import Any

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def key(name: str) -> str:
    """A TOML key, quoted when it is not a bare key."""
    return name if _BARE.match(name) else json.dumps(name, ensure_ascii=False)


def value(v: Any) -> str:
    """One TOML value (JSON string escaping is valid TOML basic-string escaping)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"not a finite number: {v}")
        return repr(round(v, 6)) if v != int(v) or abs(v) >= 1e15 else f"{v:.1f}"
    if isinstance(v, dt.date):
        return v.isoformat()
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list | tuple):
        return "[" + ", ".join(value(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__} to TOML")


def table(header: str, data: dict[str, Any]) -> list[str]:
    """`[header]` (or `[[header]]` when it starts with `[`) and its scalar keys; nested arrays
    of tables (offer prices) follow as `[[header.key]]`."""
    out = [f"[{header}]"]
    nested: list[tuple[str, list[dict[str, Any]]]] = []
    for k, v in data.items():
        if v is None:
            continue
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            nested.append((k, v))
        else:
            out.append(f"{key(k)} = {value(v)}")
    name = header.strip("[]")
    for k, items in nested:
        for item in items:
            out += table(f"[{name}.{key(k)}]", item)
    return out


def document(
    comment: str,
    sources: dict[str, dict[str, Any]],
    provider: dict[str, Any] | None,
    offers: list[dict[str, Any]],
) -> str:
    """A whole provider file: comment lines, sources, provider table, offers."""
    lines = [f"# {line}" if line else "#" for line in comment.splitlines()]
    lines.append("")
    for sid, src in sources.items():
        lines += table(f"sources.{key(sid)}", src)
        lines.append("")
    if provider is not None:
        lines += table("provider", provider)
        lines.append("")
    for offer in offers:
        lines += table("[offer]", offer)
        lines.append("")
    return "\n".join(lines)


OFFERS_PER_FILE = 1500
"""Offers per written file: catalog files are read up to 1 MB each (gpuwise.userfiles), and an
offer takes about 0.5 kB, so a large feed is split over several files."""


def documents(
    stem: str,
    comment: str,
    sources: dict[str, dict[str, Any]],
    provider: dict[str, Any] | None,
    offers: list[dict[str, Any]],
    per_file: int = OFFERS_PER_FILE,
) -> dict[str, str]:
    """`stem.toml`, `stem-2.toml`, … each with at most `per_file` offers; the sources are
    defined once (in the first file: source ids are global across the catalog)."""
    out: dict[str, str] = {}
    for n, start in enumerate(range(0, max(len(offers), 1), per_file), 1):
        name = f"{stem}.toml" if n == 1 else f"{stem}-{n}.toml"
        chunk = offers[start : start + per_file]
        out[name] = document(comment, sources if n == 1 else {}, provider, chunk)
    return out
