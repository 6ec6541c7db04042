"""The table of `gpuwise fit`."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from gpuwise.i18n import t
from gpuwise.render.estimate import gib


def fit_table(model: str, mode: str, rows: list[dict[str, Any]]) -> Table:
    """GPU, how many, memory per GPU, headroom, largest context."""
    table = Table(title=t("fit.title", model=model, mode=mode, n=len(rows)), title_justify="left")
    for key, justify in (
        ("col.id", "left"),
        ("fit.col_count", "right"),
        ("fit.col_per_gpu", "right"),
        ("fit.col_headroom", "right"),
        ("fit.col_context", "right"),
        ("fit.col_strategy", "left"),
    ):
        table.add_column(t(key), justify=justify)  # type: ignore[arg-type]
    for r in rows:
        table.add_row(
            r["gpu"],
            f"×{r['count']}",
            gib(r["device_total_bytes"]),
            gib(r["headroom_bytes"]),
            f"{r['max_context']:,}",
            r["strategy"],
        )
    return table
