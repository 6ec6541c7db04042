"""Merge old samples into buckets without losing what summaries need (pure functions).

Each stored row covers ``span_s`` seconds and ``n`` samples. Merging rows keeps: span-weighted
means (so ∫power dt = mean power × span is unchanged), maxima (so peaks are unchanged), the last
value of cumulative counters (energy), and the union of throttle reasons.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

How = Literal["first", "sum", "mean", "max", "last", "union", "key"]

GPU_SPEC: dict[str, How] = {
    "t": "first",
    "span_s": "sum",
    "n": "sum",
    "vendor": "key",
    "gpu": "key",
    "memory_used_bytes": "mean",
    "memory_used_max_bytes": "max",
    "utilization_pct": "mean",
    "temperature_c": "mean",
    "temperature_max_c": "max",
    "power_w": "mean",
    "power_max_w": "max",
    "energy_j": "last",
    "sm_clock_mhz": "mean",
    "throttle": "union",
}
PROC_SPEC: dict[str, How] = {
    "t": "first",
    "span_s": "sum",
    "vendor": "key",
    "gpu": "key",
    "pid": "key",
    "gpu_memory_bytes": "mean",
    "gpu_memory_max_bytes": "max",
}
HOST_SPEC: dict[str, How] = {
    "t": "first",
    "span_s": "sum",
    "n": "sum",
    "cpu_percent": "mean",
    "memory_used_bytes": "mean",
    "memory_used_max_bytes": "max",
    "tree_procs": "max",
    "tree_rss_bytes": "mean",
    "tree_rss_max_bytes": "max",
    "tree_cpu_percent": "mean",
}


def _mean(rows: Sequence[Mapping[str, Any]], col: str) -> float | None:
    pairs = [(float(r[col]), float(r["span_s"] or 0.0)) for r in rows if r[col] is not None]
    if not pairs:
        return None
    weight = sum(w for _, w in pairs)
    if weight <= 0:
        return sum(v for v, _ in pairs) / len(pairs)
    return sum(v * w for v, w in pairs) / weight


def merge_rows(rows: Sequence[Mapping[str, Any]], spec: Mapping[str, How]) -> dict[str, Any]:
    """One row standing for `rows` (in time order), column by column as `spec` says."""
    out: dict[str, Any] = {}
    for col, how in spec.items():
        values = [r[col] for r in rows if r[col] is not None]
        if how in ("first", "key"):
            out[col] = rows[0][col]
        elif how == "sum":
            out[col] = sum(values) if values else None
        elif how == "mean":
            out[col] = _mean(rows, col)
        elif how == "max":
            out[col] = max(values) if values else None
        elif how == "last":
            out[col] = values[-1] if values else None
        else:  # union of comma-separated names
            names = {n for v in values for n in str(v).split(",") if n}
            out[col] = ",".join(sorted(names)) if values else None
    return out


def bucket_groups(
    rows: Iterable[Mapping[str, Any]], spec: Mapping[str, How], start_t: float, bucket_s: float
) -> list[list[Mapping[str, Any]]]:
    """Rows grouped by their key columns and by the bucket their time falls in (order kept)."""
    keys = [c for c, how in spec.items() if how == "key"]
    groups: dict[tuple[Any, ...], list[Mapping[str, Any]]] = {}
    for row in rows:
        bucket = int((row["t"] - start_t) // bucket_s)
        groups.setdefault((bucket, *(row[k] for k in keys)), []).append(row)
    return list(groups.values())
