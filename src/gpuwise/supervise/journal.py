"""The SQLite journal of a supervised job: runs, and what happened in them.

One file can hold many jobs (rows carry a `job` name). Every write opens, commits and closes the
database, so a journal on a shared mount (NFS, a mounted bucket or disk) is never held locked by a
machine that vanished; SQLite's default rollback journal is used because WAL mode needs shared
memory that network filesystems do not give. Only one machine runs a given job at a time (the
spot case), so writers do not contend.

Tables: `runs(run_id, job, host, cloud, started_at, command, checkpoint_dir, offer)` and
`events(id, run_id, job, t, kind, data)`, `t` in Unix seconds, `data` a JSON object. The event
kinds and their fields are listed in docs/supervise.md.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpuwise.errors import UserError
from gpuwise.monitor.store_guard import check_schema
from gpuwise.preempt.summary import JournalEvent

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run_id INTEGER PRIMARY KEY AUTOINCREMENT,
    job TEXT NOT NULL, host TEXT NOT NULL, cloud TEXT NOT NULL, started_at REAL NOT NULL,
    command TEXT NOT NULL, checkpoint_dir TEXT NOT NULL, offer TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id INTEGER NOT NULL REFERENCES runs(run_id), job TEXT NOT NULL,
    t REAL NOT NULL, kind TEXT NOT NULL, data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_job ON events (job, t);
"""
SCHEMA_VERSION = "1"
_BUSY_TIMEOUT_S = 10.0  # how long a write waits for another writer's lock (SQLite's own wait)


@dataclass(frozen=True)
class RunInfo:
    """One row of `runs`."""

    run_id: int
    job: str
    host: str
    cloud: str
    started_at: float
    command: list[str]
    checkpoint_dir: str
    offer: str


class Journal:
    """A journal file; creates it (and its folder) on first write."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._version_checked = False

    @contextlib.contextmanager
    def _db(self, create: bool) -> Iterator[sqlite3.Connection]:
        if create:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        elif not self.path.is_file():
            raise UserError("supervise.no_journal", path=str(self.path))
        if not self._version_checked:  # a newer gpuwise's journal: refused, left untouched
            check_schema(self.path, int(SCHEMA_VERSION), "schema", "supervise.journal_newer")
            self._version_checked = True
        try:
            con = sqlite3.connect(str(self.path), timeout=_BUSY_TIMEOUT_S)
        except sqlite3.Error as exc:
            raise UserError("supervise.bad_journal", path=str(self.path), problem=str(exc)) from exc
        try:
            if create:
                con.executescript(SCHEMA)
                con.execute(
                    "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', ?)",
                    (SCHEMA_VERSION,),
                )
            yield con
            con.commit()
        except sqlite3.DatabaseError as exc:
            raise UserError("supervise.bad_journal", path=str(self.path), problem=str(exc)) from exc
        finally:
            con.close()

    def check(self) -> None:
        """Open (creating if needed) and validate the file: refuses one that is not a journal."""
        with self._db(create=True) as con:
            con.execute("SELECT count(*) FROM events").fetchone()

    def start_run(
        self,
        job: str,
        host: str,
        cloud: str,
        t: float,
        command: list[str],
        checkpoint_dir: str,
        offer: str,
    ) -> int:
        """Record a new run; returns its id."""
        with self._db(create=True) as con:
            cur = con.execute(
                "INSERT INTO runs (job, host, cloud, started_at, command, checkpoint_dir, offer)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (job, host, cloud, t, json.dumps(command), checkpoint_dir, offer),
            )
            run_id = int(cur.lastrowid or 0)
        return run_id

    def add(self, run_id: int, job: str, t: float, kind: str, **data: Any) -> None:
        """Append one event."""
        with self._db(create=True) as con:
            con.execute(
                "INSERT INTO events (run_id, job, t, kind, data) VALUES (?, ?, ?, ?, ?)",
                (run_id, job, t, kind, json.dumps(data, ensure_ascii=False, default=str)),
            )

    def jobs(self) -> list[str]:
        """Job names, oldest first."""
        with self._db(create=False) as con:
            rows = con.execute("SELECT job FROM runs GROUP BY job ORDER BY min(started_at)")
            return [str(r[0]) for r in rows.fetchall()]

    def runs(self, job: str) -> list[RunInfo]:
        """The runs of one job, oldest first."""
        with self._db(create=False) as con:
            rows = con.execute(
                "SELECT run_id, job, host, cloud, started_at, command, checkpoint_dir, offer"
                " FROM runs WHERE job = ? ORDER BY started_at",
                (job,),
            ).fetchall()
        return [
            RunInfo(
                int(r[0]),
                str(r[1]),
                str(r[2]),
                str(r[3]),
                float(r[4]),
                _list(r[5]),
                str(r[6]),
                str(r[7]),
            )
            for r in rows
        ]

    def events(self, job: str) -> list[JournalEvent]:
        """Every event of one job, in time order."""
        with self._db(create=False) as con:
            rows = con.execute(
                "SELECT run_id, t, kind, data FROM events WHERE job = ? ORDER BY t, id", (job,)
            ).fetchall()
        return [JournalEvent(int(r[0]), float(r[1]), str(r[2]), _dict(r[3])) for r in rows]

    def last_checkpoint(self, job: str) -> dict[str, Any] | None:
        """The recorded checkpoint of a job with the newest content (its data), or None.

        Content age (`mtime_ns`) decides, not the order of recording: two saves confirmed in
        one scan are recorded in either order.
        """
        if not self.path.is_file():
            return None
        with self._db(create=False) as con:
            rows = con.execute(
                "SELECT t, data FROM events WHERE job = ? AND kind = 'checkpoint' ORDER BY t, id",
                (job,),
            ).fetchall()
        found = [(float(r[0]), _dict(r[1])) for r in rows]
        if not found:
            return None
        return max(found, key=lambda td: (int(td[1].get("mtime_ns") or 0), td[0]))[1]


def _dict(text: object) -> dict[str, Any]:
    try:
        data = json.loads(str(text))
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _list(text: object) -> list[str]:
    try:
        data = json.loads(str(text))
    except ValueError:
        return []
    return [str(x) for x in data] if isinstance(data, list) else []
