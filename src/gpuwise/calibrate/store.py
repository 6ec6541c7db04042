"""The one override file `gpuwise calibrate` manages: write, show, reset.

`<override dir>/gpuwise-calibration.toml`, marked on its first line. A new calibration of a
GPU replaces that GPU's entries and keeps the others; the catalog is built with the new file
first (a file that would not load is never written), the previous version is kept as `.bak`,
and the write is atomic. A file of that name without the marker is the user's: refused, never
replaced or removed. Entries a user wrote by hand in other files are listed by `--show` but
never touched.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import tomllib

from gpuwise.catalog import files as F
from gpuwise.errors import CatalogError, UserError
from gpuwise.prices.tomlw import key, table, value
from gpuwise.userfiles import read_managed, replace_managed

FILE_NAME = "gpuwise-calibration.toml"
MARKER = "gpuwise-managed calibration"
KINDS = ("measured_rate", "engine")
"""What the file holds: measured rates (bench) and engines' fitted memory constants (runs)."""


def path() -> Path:
    """The managed file."""
    return F.override_dir() / FILE_NAME


def _managed(p: Path) -> dict[str, Any]:
    """The managed file's data ({} when absent); a file without the marker is refused."""
    text = read_managed(p, MARKER, "calibrate.not_managed")
    return {} if text is None else tomllib.loads(text)


def _line(name: str, v: Any) -> str:
    """`key = value`, a table value written inline ({ value = …, source = … })."""
    if isinstance(v, dict):
        inner = ", ".join(f"{key(k)} = {value(x)}" for k, x in v.items() if x is not None)
        return f"{key(name)} = {{ {inner} }}"
    return f"{key(name)} = {value(v)}"


def render_file(sources: dict[str, dict[str, Any]], kinds: dict[str, list[dict[str, Any]]]) -> str:
    """The file's text: marker, sources, then each kind's entries as arrays of tables."""
    lines = [
        f"# {MARKER}: written by `gpuwise calibrate`; `gpuwise calibrate --reset` removes it.",
        "# Your own measured rates go in another file: gpuwise never edits those.",
        "",
    ]
    for sid, src in sorted(sources.items()):
        lines += [*table(f"sources.{key(sid)}", src), ""]
    for kind in KINDS:
        for entry in kinds.get(kind, []):
            lines += [f"[[{kind}]]", *(_line(k, v) for k, v in entry.items() if v is not None), ""]
    return "\n".join(lines)


def _sources_of(entry: dict[str, Any]) -> set[str]:
    found = {str(entry["source"])} if "source" in entry else set()
    return found | {
        str(v["source"]) for v in entry.values() if isinstance(v, dict) and "source" in v
    }


def _validate(text: str) -> None:
    """Build the whole catalog with `text` in place of the managed file."""
    from gpuwise.catalog import catalog as C

    folder = F.override_dir()
    probe = folder / f".{FILE_NAME}.{os.getpid()}.check.toml"
    probe.write_text(text, encoding="utf-8")
    try:
        others = [p for p in F.override_files() if p.name not in (FILE_NAME, probe.name)]
        feeds = F.feed_files()  # a broken feed or other override never blocks this file
        C.build_skipping(F.builtin_files() + feeds + others + [probe], feeds + others)
    except CatalogError as exc:
        raise UserError("calibrate.invalid", problem=exc.render()) from exc
    finally:
        probe.unlink(missing_ok=True)


def write(
    new: dict[str, list[dict[str, Any]]],
    replaces: Callable[[str, dict[str, Any]], bool],
    sources: dict[str, dict[str, Any]],
) -> Path:
    """Add `new` entries to the managed file, dropping the old ones `replaces` names (others
    kept); returns the file."""
    p = path()
    old = _managed(p)
    kinds = {
        kind: [e for e in old.get(kind, []) if not replaces(kind, e)] + new.get(kind, [])
        for kind in KINDS
    }
    used = {sid for entries in kinds.values() for e in entries for sid in _sources_of(e)}
    all_sources = {k: v for k, v in (old.get("sources", {}) | sources).items() if k in used}
    text = render_file(all_sources, kinds)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        _validate(text)
        replace_managed(p, text)
    except OSError as exc:  # a read-only or misplaced override folder: one line, no traceback
        problem = exc.strerror or str(exc)
        raise UserError("files.cannot_write", file=str(p), problem=problem) from exc
    return p


def reset() -> Path | None:
    """Remove the managed file (a `.bak` is kept); None when there was none."""
    p = path()
    if not p.exists():
        return None
    _managed(p)
    p.with_name(p.name + ".bak").write_bytes(p.read_bytes())
    p.unlink()
    return p


def shown(cat: Any) -> list[dict[str, Any]]:
    """Every measured_rate the catalog holds, with where it came from (managed or the user's)."""
    out = []
    for e in cat.extra("measured_rate"):
        data = e.model_dump(mode="json", exclude={"field_sources", "notes"})
        src = cat.sources.get(e.source)
        data["source_title"] = src.title if src else ""
        data["managed"] = e.source.startswith("measured-")
        out.append(data)
    return out


def fitted_engines(cat: Any) -> list[dict[str, Any]]:
    """Engines whose allocator reserve `calibrate --runs` fitted (their source says so)."""
    out = []
    for e in cat.extra("engine"):
        sid = e.field_sources.get("allocator_reserve_fraction", "")
        if sid.startswith("measured-runs-"):
            src = cat.sources.get(sid)
            out.append(
                {
                    "engine": e.id,
                    "allocator_reserve_fraction": e.allocator_reserve_fraction,
                    "source": sid,
                    "source_title": src.title if src else "",
                }
            )
    return out


def today() -> dt.date:
    """The local date of a calibration."""
    return dt.date.today()
