"""Recorded runs in one SQLite file (WAL): what `record` writes and `runs` reads.

Every sample is committed on its own, so killing gpuwise (even with SIGKILL) loses at most the
sample being taken; WAL with synchronous=NORMAL keeps committed data when a process dies (only
a power cut may lose the last commits). The schema (version 1) is documented in docs/monitor.md
for tools that read the file directly; units are in the column names.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpuwise.errors import UserError
from gpuwise.monitor.downsample import (
    GPU_SPEC,
    HOST_SPEC,
    PROC_SPEC,
    How,
    bucket_groups,
    merge_rows,
)
from gpuwise.monitor.model import Sample
from gpuwise.monitor.store_guard import check_schema
from gpuwise.monitor.store_schema import DDL, SCHEMA_VERSION

StoreError = sqlite3.Error
"""A failed read or write of the store (disk full, locked file): callers that must go on
(the recorder) catch this without importing sqlite3 themselves."""
_TABLES: dict[str, Mapping[str, How]] = {
    "gpu_samples": GPU_SPEC,
    "proc_samples": PROC_SPEC,
    "host_samples": HOST_SPEC,
}


@dataclass(frozen=True)
class RunRecord:
    """One row of `runs` with its JSON columns decoded."""

    id: int
    name: str
    command: list[str]
    source: str
    host: str
    started_at: float
    ended_at: float | None
    exit_code: int | None
    status: str
    interval_s: float
    recorder_pid: int | None
    child_pid: int | None
    attribution: str
    gpus: list[dict[str, Any]]
    options: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """JSON form (`runs --json`)."""
        return dict(self.__dict__)


@dataclass(frozen=True)
class TreeTotals:
    """The recorded command's process tree at one sample."""

    procs: int
    rss_bytes: int | None
    cpu_percent: float | None


@dataclass(frozen=True)
class ProcRow:
    """A process of the recorded command holding GPU memory at one sample."""

    vendor: str
    gpu: int
    pid: int
    gpu_memory_bytes: int | None


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), timeout=10.0)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


class RunStore:
    """The run store at ``path``; ``create=False`` opens an existing file only (read commands)."""

    def __init__(self, path: Path, create: bool = True) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = None
        if not create and not path.exists():
            return
        check_schema(path, SCHEMA_VERSION)  # a newer gpuwise's file: refused, left untouched
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = _connect(path)
            with self._conn:
                self._conn.executescript(DDL)
                self._conn.execute(
                    "INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)",
                    (str(SCHEMA_VERSION),),
                )
        except (OSError, sqlite3.Error) as exc:
            raise UserError("monitor.store_unwritable", path=str(path), problem=str(exc)) from exc

    @property
    def conn(self) -> sqlite3.Connection:
        """The connection (a store opened with create=False on a missing file has none)."""
        if self._conn is None:
            raise UserError("runs.no_runs", path=str(self.path))
        return self._conn

    def close(self) -> None:
        """Close the connection."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    # ------------------------------------------------------------------ writing

    def create_run(
        self,
        name: str,
        command: Sequence[str],
        source: str,
        interval_s: float,
        started_at: float,
        gpus: Sequence[Mapping[str, Any]] = (),
        options: Mapping[str, Any] | None = None,
        status: str = "running",
    ) -> int:
        """A new run; returns its id."""
        with self.conn:
            cur = self.conn.execute(
                "INSERT INTO runs (name, command, source, host, started_at, status, interval_s,"
                " recorder_pid, gpus, options) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    name,
                    json.dumps(list(command)),
                    source,
                    socket.gethostname(),
                    started_at,
                    status,
                    interval_s,
                    os.getpid(),
                    json.dumps(list(gpus)),
                    json.dumps(dict(options or {})),
                ),
            )
        return int(cur.lastrowid or 0)

    def update_run(self, run_id: int, **values: Any) -> None:
        """Set columns of a run (child_pid, ended_at, exit_code, status, attribution, …)."""
        allowed = {"child_pid", "ended_at", "exit_code", "status", "attribution", "gpus", "options"}
        bad = set(values) - allowed
        if bad:
            raise ValueError(f"not updatable: {sorted(bad)}")
        cols = ", ".join(f"{k} = ?" for k in values)
        params = [json.dumps(v) if k in ("gpus", "options") else v for k, v in values.items()]
        with self.conn:
            self.conn.execute(f"UPDATE runs SET {cols} WHERE id = ?", (*params, run_id))

    def add_sample(
        self,
        run_id: int,
        sample: Sample,
        span_s: float,
        procs: Iterable[ProcRow] = (),
        tree: TreeTotals | None = None,
        events: Iterable[tuple[str | None, int | None, str, str]] = (),
    ) -> None:
        """Store one sample (GPU rows, the command's processes, host and tree, events) at once."""
        t = sample.t
        gpu_rows = [
            (
                run_id,
                t,
                span_s,
                g.vendor,
                g.index,
                g.memory_used_bytes,
                g.memory_used_bytes,
                g.utilization_pct,
                g.temperature_c,
                g.temperature_c,
                g.power_w,
                g.power_w,
                g.energy_j,
                g.sm_clock_mhz,
                ",".join(g.throttle_reasons) if g.throttle_reasons is not None else None,
            )
            for g in sample.gpus
        ]
        proc_rows = [
            (run_id, t, span_s, p.vendor, p.gpu, p.pid, p.gpu_memory_bytes, p.gpu_memory_bytes)
            for p in procs
        ]
        h = sample.host
        with self.conn:
            self.conn.executemany(
                "INSERT INTO gpu_samples (run_id, t, span_s, vendor, gpu, memory_used_bytes,"
                " memory_used_max_bytes, utilization_pct, temperature_c, temperature_max_c,"
                " power_w, power_max_w, energy_j, sm_clock_mhz, throttle)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                gpu_rows,
            )
            self.conn.executemany(
                "INSERT INTO proc_samples (run_id, t, span_s, vendor, gpu, pid, gpu_memory_bytes,"
                " gpu_memory_max_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                proc_rows,
            )
            if h is not None or tree is not None:
                self._add_host(run_id, t, span_s, sample, tree)
            self.conn.executemany(
                "INSERT INTO events (run_id, t, vendor, gpu, kind, detail)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                [(run_id, t, v, g, k, d) for v, g, k, d in events],
            )

    def _add_host(
        self, run_id: int, t: float, span_s: float, sample: Sample, tree: TreeTotals | None
    ) -> None:
        h = sample.host
        used = h.memory_used_bytes if h is not None else None
        rss = tree.rss_bytes if tree is not None else None
        self.conn.execute(
            "INSERT INTO host_samples (run_id, t, span_s, cpu_percent, memory_used_bytes,"
            " memory_used_max_bytes, tree_procs, tree_rss_bytes, tree_rss_max_bytes,"
            " tree_cpu_percent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run_id,
                t,
                span_s,
                h.cpu_percent if h is not None else None,
                used,
                used,
                tree.procs if tree is not None else None,
                rss,
                rss,
                tree.cpu_percent if tree is not None else None,
            ),
        )

    def compact(self, run_id: int, before_t: float, start_t: float, bucket_s: float) -> int:
        """Merge the run's rows older than `before_t` into `bucket_s` buckets; rows removed."""
        removed = 0
        with self.conn:
            for table, spec in _TABLES.items():
                removed += self._compact_table(table, spec, run_id, before_t, start_t, bucket_s)
        return removed

    def _compact_table(
        self,
        table: str,
        spec: Mapping[str, How],
        run_id: int,
        before_t: float,
        start_t: float,
        bucket_s: float,
    ) -> int:
        rows = self.conn.execute(
            f"SELECT rowid, * FROM {table} WHERE run_id = ? AND t < ? ORDER BY t, rowid",
            (run_id, before_t),
        ).fetchall()
        removed = 0
        cols = list(spec)
        for group in bucket_groups(rows, spec, start_t, bucket_s):
            if len(group) < 2:
                continue
            merged = merge_rows(group, spec)
            ids = [r["rowid"] for r in group]
            self.conn.execute(
                f"DELETE FROM {table} WHERE rowid IN ({','.join('?' * len(ids))})", ids
            )
            self.conn.execute(
                f"INSERT INTO {table} (run_id, {', '.join(cols)})"
                f" VALUES (?, {', '.join('?' * len(cols))})",
                (run_id, *(merged[c] for c in cols)),
            )
            removed += len(group) - 1
        return removed

    # ------------------------------------------------------------------ reading

    def runs(self, limit: int | None = None) -> list[RunRecord]:
        """Runs, newest first (none when the store does not exist yet)."""
        if self._conn is None:
            return []
        sql = "SELECT * FROM runs ORDER BY id DESC" + (" LIMIT ?" if limit else "")
        rows = self._conn.execute(sql, (limit,) if limit else ()).fetchall()
        return [_record(r) for r in rows]

    def run(self, run_id: int) -> RunRecord:
        """One run; a clear error when there is no such id."""
        row = self.conn.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise UserError("runs.unknown", id=run_id)
        return _record(row)

    def rows(self, table: str, run_id: int) -> list[dict[str, Any]]:
        """All rows of `table` for a run, in time order, as dicts."""
        if table not in (*_TABLES, "events"):
            raise ValueError(table)
        cur = self.conn.execute(
            f"SELECT * FROM {table} WHERE run_id = ? ORDER BY t, rowid", (run_id,)
        )
        return [dict(r) for r in cur.fetchall()]

    def delete(self, run_id: int) -> None:
        """Remove a run and its samples."""
        self.run(run_id)
        with self.conn:
            self.conn.execute("DELETE FROM runs WHERE id = ?", (run_id,))


def _record(row: sqlite3.Row) -> RunRecord:
    return RunRecord(
        id=int(row["id"]),
        name=row["name"],
        command=json.loads(row["command"]),
        source=row["source"],
        host=row["host"],
        started_at=float(row["started_at"]),
        ended_at=row["ended_at"],
        exit_code=row["exit_code"],
        status=row["status"],
        interval_s=float(row["interval_s"]),
        recorder_pid=row["recorder_pid"],
        child_pid=row["child_pid"],
        attribution=row["attribution"],
        gpus=json.loads(row["gpus"]),
        options=json.loads(row["options"]),
    )


def effective_status(run: RunRecord) -> str:
    """The stored status, but 'interrupted' for a run whose recorder is gone (killed, crashed).

    Only decidable on the machine that recorded it; elsewhere a running run stays 'running'.
    """
    if run.status != "running" or run.recorder_pid is None or run.host != socket.gethostname():
        return run.status
    import psutil

    return "running" if psutil.pid_exists(run.recorder_pid) else "interrupted"
