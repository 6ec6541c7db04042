"""PNG/SVG chart of a recorded run: memory, power and temperature of each GPU over time.

matplotlib (Agg) is imported only here and only when a chart is asked for. Chinese labels need
a CJK font; :func:`gpuwise.render.chart.find_cjk_font` looks one up and, without one, the labels
fall back to English with a note (no square boxes).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gpuwise.errors import UserError
from gpuwise.i18n import Lang, t

GIB = 1024**3
FORMATS = {".png": "png", ".svg": "svg"}
PANELS = (
    ("memory_used_max_bytes", 1 / GIB, "chart.run_memory"),
    ("power_w", 1.0, "chart.run_power"),
    ("temperature_c", 1.0, "chart.run_temperature"),
)


def chart_format(path: str) -> str:
    """'png' or 'svg' from the file name; a clear error otherwise."""
    fmt = FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise UserError("runs.bad_chart_format", path=path)
    return fmt


def plot_run(
    title: str,
    start_t: float,
    gpu_rows: Sequence[Mapping[str, Any]],
    path: Path,
    fmt: str,
    lang: Lang,
) -> list[str]:
    """Write the chart to `path` as `fmt` ('png' or 'svg'); returns notes in the user's language."""
    from matplotlib import rc_context, rcParams

    from gpuwise.render.chart import find_cjk_font

    notes: list[str] = []
    label_lang: Lang = lang
    rc: dict[str, Any] = {"svg.hashsalt": "gpuwise"}
    if lang == "zh":
        font = find_cjk_font()
        if font is None:
            label_lang = "en"
            notes.append(t("cost.note_no_cjk_font"))
        else:
            rc.update(
                {
                    "font.family": "sans-serif",
                    "font.sans-serif": [font, *rcParams["font.sans-serif"]],
                    "axes.unicode_minus": False,
                }
            )
    with rc_context(rc):  # type: ignore[arg-type]
        _draw(title, start_t, gpu_rows, path, fmt, label_lang)
    return notes


def _draw(
    title: str, start_t: float, rows: Sequence[Mapping[str, Any]], path: Path, fmt: str, lang: Lang
) -> None:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 8), dpi=110)
    axes = fig.subplots(len(PANELS), 1, sharex=True)
    devices = sorted({(r["vendor"], r["gpu"]) for r in rows})
    span = max((r["t"] - start_t for r in rows), default=0.0)
    unit, xlabel = (60.0, "chart.run_minutes") if span >= 120 else (1.0, "chart.run_seconds")
    for ax, (col, scale, key) in zip(axes, PANELS, strict=True):
        for vendor, gpu in devices:
            pts = [
                ((r["t"] - start_t) / unit, r[col] * scale)
                for r in rows
                if r["vendor"] == vendor and r["gpu"] == gpu and r[col] is not None
            ]
            if pts:
                xs, ys = zip(*pts, strict=True)
                ax.plot(xs, ys, lw=1.5, label=f"{vendor}:{gpu}")
        ax.set_ylabel(t(key, lang=lang))
        ax.grid(True, alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8, loc="upper left")
    axes[0].set_title(title)
    axes[-1].set_xlabel(t(xlabel, lang=lang))
    fig.tight_layout()
    fig.savefig(path, format=fmt)
