"""One component, one verdict — the check every replayed case and fault-matrix run passes."""

from __future__ import annotations

from typing import Any

from gpuwise.doctor.verdict import ROW_COMPONENTS, component, components

LEVELS = {"error": 0, "warn": 1, "info": 2, "ok": 3}


def check_consistent(report: dict[str, Any]) -> None:
    """One component, one verdict: no OK next to a problem; each row shows its worst finding."""
    worst: dict[str, int] = {}
    for f in report["findings"]:
        for comp in components(f["id"]):
            worst[comp] = min(worst.get(comp, 3), LEVELS[f["level"]])
    for f in report["findings"]:
        if f["level"] == "ok":
            assert worst[component(f["id"])] >= LEVELS["info"], f["id"]
    for row in report["summary"]:
        if row["probe"] not in ROW_COMPONENTS or row["row"] == "python":
            continue
        levels = [worst[c] for c in ROW_COMPONENTS[row["probe"]] if c in worst]
        got = LEVELS[row["verdict"]] if row.get("verdict") else None
        assert got == (min(levels) if levels else None), (row, levels)
