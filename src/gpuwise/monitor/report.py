"""A stored run turned into its summary (rows from the store → pure summary functions)."""

from __future__ import annotations

from typing import Any

from gpuwise.monitor.store import RunStore, effective_status
from gpuwise.monitor.summary import TariffPrice, summarise, with_cost, with_estimate, with_tokens


def run_summary(store: RunStore, run_id: int, tariff: TariffPrice | None = None) -> dict[str, Any]:
    """Peaks, energy, cost at `tariff` and — when the run was recorded with one — the estimate."""
    run = store.run(run_id)
    summary = summarise(
        run,
        store.rows("gpu_samples", run_id),
        store.rows("proc_samples", run_id),
        store.rows("host_samples", run_id),
        store.rows("events", run_id),
        status=effective_status(run),
    )
    if tariff is not None:
        with_cost(summary, tariff)
    estimate = run.options.get("estimate")
    if estimate:
        with_estimate(summary, estimate)
    if run.options.get("tokens"):
        with_tokens(summary, run.options["tokens"], estimate)
    return summary


def run_listing(store: RunStore, limit: int | None = None) -> list[dict[str, Any]]:
    """Runs for `gpuwise runs`, newest first, with their live status and duration."""
    out = []
    for run in store.runs(limit):
        last = run.ended_at
        if last is None:
            row = store.conn.execute(
                "SELECT MAX(t) FROM (SELECT t FROM gpu_samples WHERE run_id = ?"
                " UNION ALL SELECT t FROM host_samples WHERE run_id = ?)",
                (run.id, run.id),
            ).fetchone()
            last = row[0] if row and row[0] is not None else run.started_at
        out.append(
            {**run.to_dict(), "status": effective_status(run), "duration_s": last - run.started_at}
        )
    return out
