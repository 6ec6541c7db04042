"""Fit the memory model's allocator reserve to recorded runs (pure).

`gpuwise record --model … -- CMD` keeps gpuwise's estimate beside the measured per-GPU peak
(monitor/summary.py `measured_peak`). The estimate's device total is
allocated × (1 + allocator_reserve_fraction) + cuda_context (estimate/memory.py), so each run
implies reserve = (measured − context − allocated) ÷ allocated. The fit per engine is the median
over runs (robust to one odd run), kept inside the schema's 0–0.5; runs of engines that
preallocate a pool (vLLM, SGLang: their total is the pool, not the allocator) and runs measured
as whole-device totals (imported logs) are left out. Recorded runs carry no token counts, so
tokens/s cannot be fitted from them.
"""

from __future__ import annotations

import datetime as dt
import statistics
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

RESERVE_MAX = 0.5
"""The schema's bound on allocator_reserve_fraction (catalog/schema_memory.py)."""


@dataclass(frozen=True)
class RunPoint:
    """One recorded run with an estimate: what gpuwise predicted and what was measured."""

    run_id: int
    engine: str
    allocated_bytes: int
    context_bytes: int
    estimated_bytes: int
    measured_bytes: int

    @property
    def implied_reserve(self) -> float:
        """The reserve fraction that makes the estimate equal the measurement."""
        extra = self.measured_bytes - self.context_bytes - self.allocated_bytes
        return min(RESERVE_MAX, max(0.0, extra / self.allocated_bytes))

    def error_pct(self, reserve: float | None = None) -> float:
        """(estimate − measured) ÷ measured, with the catalog's reserve or a fitted one."""
        est = self.estimated_bytes
        if reserve is not None:
            est = int(self.allocated_bytes * (1 + reserve) + self.context_bytes)
        return (est - self.measured_bytes) / self.measured_bytes * 100


def point(
    run_id: int, summary: Mapping[str, Any], report: Mapping[str, Any], preallocating: set[str]
) -> RunPoint | None:
    """The run as a fit point (`report`: the estimate recorded with it), or None when it cannot
    inform the reserve."""
    est = summary.get("estimate")
    if not est or est.get("measured_kind") != "process" or not est.get("measured_bytes"):
        return None
    engine = report.get("inputs", {}).get("engine")
    memory = report.get("memory", {})
    if not engine or engine in preallocating or not memory.get("allocated_peak_bytes"):
        return None
    return RunPoint(
        run_id=run_id,
        engine=engine,
        allocated_bytes=int(memory["allocated_peak_bytes"]),
        context_bytes=int(memory.get("breakdown", {}).get("cuda_context", 0)),
        estimated_bytes=int(est["estimated_bytes"]),
        measured_bytes=int(est["measured_bytes"]),
    )


def fit(points: Iterable[RunPoint]) -> dict[str, dict[str, Any]]:
    """Per engine: fitted reserve, runs used, mean |error| before and after."""
    by: dict[str, list[RunPoint]] = {}
    for p in points:
        by.setdefault(p.engine, []).append(p)
    out = {}
    for engine, pts in sorted(by.items()):
        reserve = statistics.median(p.implied_reserve for p in pts)
        out[engine] = {
            "allocator_reserve_fraction": round(reserve, 4),
            "runs": [p.run_id for p in pts],
            "mean_abs_error_pct_before": statistics.fmean(abs(p.error_pct()) for p in pts),
            "mean_abs_error_pct_after": statistics.fmean(abs(p.error_pct(reserve)) for p in pts),
        }
    return out


def override(
    fitted: Mapping[str, Mapping[str, Any]], day: dt.date, url: str
) -> tuple[dict[str, list[dict[str, Any]]], Callable[[str, dict[str, Any]], bool], dict[str, Any]]:
    """What the managed file gets: each engine's reserve as a sourced number (the engine's other
    numbers keep their catalog sources), which old entries it replaces, and its source."""
    sid = f"measured-runs-{day.isoformat()}"
    used = sorted({r for f in fitted.values() for r in f["runs"]})
    source = {
        "url": url,
        "retrieved": day,
        "title": f"measured on this machine, {day.isoformat()}: peak GPU memory of recorded runs "
        f"{', '.join(map(str, used))} (gpuwise record) against their estimates",
    }
    engines = [
        {
            "id": name,
            "allocator_reserve_fraction": {
                "value": f["allocator_reserve_fraction"],
                "source": sid,
                "note": f"fitted to recorded runs {', '.join(map(str, f['runs']))}",
            },
        }
        for name, f in fitted.items()
    ]

    def replaces(kind: str, entry: dict[str, Any]) -> bool:
        return kind == "engine" and entry.get("id") in fitted

    return {"engine": engines}, replaces, {sid: source}
