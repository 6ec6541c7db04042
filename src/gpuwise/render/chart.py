"""PNG chart of cumulative cost over months, break-even points marked (matplotlib, Agg).

The only module that imports matplotlib, and only inside :func:`plot_cumulative`, so commands
that draw no chart never pay for the import. Chinese labels need a CJK font: one is looked up
among the fonts matplotlib knows; without one the labels fall back to English and a note says
so (square boxes are never drawn).
"""

from __future__ import annotations

import io
import threading
from pathlib import Path
from typing import IO, Any

from gpuwise.cost.report_model import Chart, CostReport, Timeline
from gpuwise.errors import UserError
from gpuwise.i18n import Lang, t
from gpuwise.render.cost import option_name

CJK_FONTS = (
    "Noto Sans CJK SC",
    "Noto Sans SC",
    "Noto Serif CJK SC",
    "Source Han Sans SC",
    "Source Han Sans CN",
    "WenQuanYi Zen Hei",
    "WenQuanYi Micro Hei",
    "Sarasa Gothic SC",
    "Microsoft YaHei",
    "SimHei",
    "PingFang SC",
    "Hiragino Sans GB",
    "Heiti SC",
    "AR PL UMing CN",
)
"""Fonts with Simplified Chinese glyphs, best first."""

_RC_LOCK = threading.Lock()
"""matplotlib's rc settings are process-wide: `gpuwise serve` may draw two charts at once."""

_CJK_HINTS = ("CJK", "Source Han", "WenQuanYi", "YaHei", "Hei", "Sarasa", "Droid Sans Fallback")


def find_cjk_font() -> str | None:
    """The name of an installed font that has Chinese glyphs, or None."""
    from matplotlib import font_manager

    names = {f.name for f in font_manager.fontManager.ttflist}
    for name in CJK_FONTS:
        if name in names:
            return name
    return next((n for n in sorted(names) if any(h in n for h in _CJK_HINTS)), None)


def plot_cumulative(
    report: CostReport | Timeline, path: str, lang: Lang, save_to: str | None = None
) -> list[str]:
    """Write the chart to `path` (or to `save_to`, a temporary file the caller renames to
    `path`); return notes for the user (already in their language)."""
    from matplotlib import rc_context, rcParams

    notes: list[str] = []
    label_lang: Lang = lang
    rc: dict[str, Any] = {}
    if lang == "zh":
        font = find_cjk_font()
        if font is None:
            label_lang = "en"
            notes.append(t("cost.note_no_cjk_font"))
        else:
            rc = {
                "font.family": "sans-serif",
                "font.sans-serif": [font, *rcParams["font.sans-serif"]],
                "axes.unicode_minus": False,
            }
    with _RC_LOCK, rc_context(rc):  # type: ignore[arg-type]
        _draw(report, save_to or path, label_lang)
    notes.append(t("cost.plot_written", path=path))
    return notes


def chart_svg(report: CostReport | Timeline, lang: Lang) -> str:
    """The chart as SVG text for a web page. Text stays text (the reader's browser draws the
    Chinese with its own fonts, so no CJK font is needed here); a CJK font, where one is
    installed, only makes the layout measure Chinese labels right."""
    import warnings

    from matplotlib import rc_context, rcParams

    rc: dict[str, Any] = {
        "svg.fonttype": "none",
        "svg.hashsalt": "gpuwise",
        "axes.unicode_minus": False,
    }
    font = find_cjk_font() if lang == "zh" else None
    if font is not None:
        rc.update(
            {"font.family": "sans-serif", "font.sans-serif": [font, *rcParams["font.sans-serif"]]}
        )
    buf = io.BytesIO()
    with _RC_LOCK, rc_context(rc), warnings.catch_warnings():  # type: ignore[arg-type]
        warnings.simplefilter("ignore")  # "Glyph missing": the browser has the glyphs
        _draw(report, buf, lang, "svg")
    return buf.getvalue().decode("utf-8")


def _draw(
    report: CostReport | Timeline, target: str | IO[bytes], label_lang: Lang, fmt: str = "png"
) -> None:
    """Draw and save the figure (fonts already configured)."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter

    chart = report.chart
    months = chart.months
    fig = Figure(figsize=(9, 5.5), dpi=110)
    ax = fig.subplots()
    colors: dict[str, Any] = {}
    for o in report.options:
        (line,) = ax.plot(months, chart.series[o.label], label=option_name(o, label_lang), lw=2)
        colors[o.label] = line.get_color()
    if chart.own:
        _mark_break_even(ax, chart, colors, label_lang)
    horizon = report.inputs.months
    if horizon < months[-1]:
        ax.axvline(horizon, ls=":", lw=1, color="black")
        ax.annotate(
            t("chart.horizon", lang=label_lang),
            (horizon, 0),
            xycoords=("data", "axes fraction"),
            textcoords="offset points",
            xytext=(3, 4),
            fontsize=8,
        )
    hours = report.inputs.hours_per_day
    ax.set_title(t("chart.title", lang=label_lang, hours=hours, months=horizon))
    ax.set_xlabel(t("chart.xlabel", lang=label_lang))
    ax.set_ylabel(t("chart.ylabel", lang=label_lang, currency=report.currency))
    ax.grid(True, alpha=0.3)
    ax.set_xlim(0, months[-1] + 1)
    ax.set_ylim(bottom=0)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:,.0f}"))
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    try:
        fig.savefig(Path(target) if isinstance(target, str) else target, format=fmt)
    except OSError as exc:
        raise UserError("cost.plot_failed", path=str(target), problem=str(exc)) from exc


def _mark_break_even(ax: Any, chart: Chart, colors: dict[str, Any], label_lang: Lang) -> None:
    """A dashed line and a labelled dot where owning catches up with each rental; labels
    near the right edge point left, and stack so that close months stay readable."""
    assert chart.own is not None
    own_series = chart.series[chart.own]
    last = chart.months[-1]
    marks = sorted(chart.break_even_months.items(), key=lambda kv: kv[1])
    for i, (label, month) in enumerate(marks):
        y = own_series[month - 1]
        color = colors.get(label, "grey")
        ax.axvline(month, ls="--", lw=1, color=color, alpha=0.6)
        ax.plot([month], [y], "o", color=color, ms=7, markeredgecolor="black")
        right = month > 0.75 * last
        ax.annotate(
            t("chart.break_even", lang=label_lang, month=month),
            (month, y),
            textcoords="offset points",
            xytext=(-8 if right else 8, 10 + 14 * (i % 3)),
            ha="right" if right else "left",
            fontsize=9,
            color=color,
        )
