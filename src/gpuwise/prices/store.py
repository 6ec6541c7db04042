"""The feed cache on disk: provider files in catalog format, the state of each feed, and the
validation every file passes before it replaces the previous one.

Layout under `<user cache>/prices/`: `<feed>-<provider>.toml` (read by `load_catalog()` as a
layer between the built-in data and the user's overrides), `state.json` (per feed: URLs,
fetch time, ETag/Last-Modified, counts, findings, resume points) and `work/<feed>/` (pages and
rows of an unfinished or unchanged fetch). Package data is never written.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from gpuwise.catalog import files as F


def root() -> Path:
    """The feed folder (created on demand)."""
    return F.feed_dir()


def work_dir(feed: str) -> Path:
    """Scratch space of one feed (pages, filtered rows) kept for resume and 304 answers."""
    path = root() / "work" / feed
    path.mkdir(parents=True, exist_ok=True)
    return path


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def read_state() -> dict[str, Any]:
    """Every feed's last state (empty when never refreshed or unreadable)."""
    try:
        data = json.loads((root() / "state.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_state(feed: str, state: dict[str, Any]) -> None:
    """Replace one feed's state atomically."""
    data = read_state()
    data[feed] = state
    _atomic_write(root() / "state.json", json.dumps(data, indent=1, sort_keys=True, default=str))


def save_json(path: Path, data: Any) -> None:
    """Write scratch data atomically (a page, a region's rows)."""
    _atomic_write(path, json.dumps(data, default=str))


def load_json(path: Path) -> Any:
    """Scratch data, or None when absent or unreadable."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def feed_files(feed: str) -> list[Path]:
    """The provider files one feed wrote."""
    return sorted(root().glob(f"{feed}-*.toml"))


def commit(feed: str, docs: dict[str, str]) -> list[Path]:
    """Validate a feed's new files with the whole catalog, then swap them in.

    The files are staged, the catalog is built from the built-in data, the other feeds, the
    staged files and the user's overrides (the same loader and schema as always); only when
    that succeeds do they replace the feed's previous files. Raises CatalogError otherwise,
    leaving the previous files in place.
    """
    from gpuwise.catalog import catalog as C

    stage = root() / "work" / f"stage-{feed}"
    shutil.rmtree(stage, ignore_errors=True)
    stage.mkdir(parents=True)
    staged = []
    for name, text in sorted(docs.items()):
        path = stage / name
        path.write_text(text, encoding="utf-8")
        staged.append(path)
    others = [p for p in F.feed_files() if not p.name.startswith(f"{feed}-")]
    overrides = F.override_files()  # a broken override of the user's is skipped, not blamed
    files = F.builtin_files() + others + staged + overrides
    C.build_skipping(files, others + overrides)  # CatalogError: the previous files stay
    old = set(feed_files(feed))
    out = []
    for path in staged:
        dest = root() / path.name
        path.replace(dest)
        old.discard(dest)
        out.append(dest)
    for path in old:
        path.unlink(missing_ok=True)
    shutil.rmtree(stage, ignore_errors=True)
    C._loaded.clear()
    return out
