"""Refuse a run store written by a newer gpuwise before touching it.

A newer gpuwise may have changed the tables; reading such a file as version 1 shows wrong
figures, and writing to it (a `record`, or merely switching it to WAL mode on open) can corrupt
it for the gpuwise that made it. The version is read through a read-only connection, so a
refused file is left byte for byte as it was (newcomer review, `state-future-schema`).
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from gpuwise.errors import UserError


def stored_version(path: Path, key: str = "schema_version") -> str | None:
    """The version a store file records in `meta` under `key`, or None (no file, no meta
    table, not SQLite: the normal open reports those)."""
    if not path.is_file():
        return None
    try:
        # immutable: no lock, no -wal/-shm created; a version check needs nothing more
        uri = f"{path.resolve().as_uri()}?mode=ro&immutable=1"
        with contextlib.closing(sqlite3.connect(uri, uri=True, timeout=10.0)) as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    except sqlite3.Error:
        return None
    return None if row is None else str(row[0])


def check_schema(
    path: Path, known: int, key: str = "schema_version", message: str = "monitor.store_newer"
) -> None:
    """Raise a UserError when the store at `path` says a version this gpuwise does not know."""
    found = stored_version(path, key)
    if found is None or found == str(known):
        return
    if found.isdigit() and int(found) < known:
        return  # older: the open upgrades what it can (CREATE TABLE IF NOT EXISTS)
    raise UserError(message, path=str(path), found=found, known=known)
