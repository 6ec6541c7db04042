"""SVG for the pages, drawn on the server: the cost chart (matplotlib, through the CLI's own
chart drawer) made safe for a strict Content-Security-Policy, and the memory stacked bar.

A policy without 'unsafe-inline' styles drops every `style="…"` attribute and `<style>`
element, so matplotlib's SVG is rewritten to presentation attributes (`fill="…"`), which a
policy does not touch. Its metadata (with outside URLs) and XML prologue go too.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from gpuwise.i18n import Lang, t
from gpuwise.web.html import Markup, el, esc

if TYPE_CHECKING:
    from gpuwise.cost.report_model import Timeline

_STYLE_ATTR = re.compile(r'\sstyle="([^"]*)"')
_DROP = (
    re.compile(r"<\?xml[^>]*\?>\s*"),
    re.compile(r"<!DOCTYPE[^>]*>\s*", re.S),
    re.compile(r"<metadata>.*?</metadata>\s*", re.S),
    re.compile(r"<style[^>]*>.*?</style>\s*", re.S),
)
_PRESENTATION = {
    "fill",
    "fill-opacity",
    "stroke",
    "stroke-width",
    "stroke-opacity",
    "stroke-linecap",
    "stroke-linejoin",
    "stroke-dasharray",
    "stroke-dashoffset",
    "stroke-miterlimit",
    "opacity",
    "font-size",
    "font-family",
    "font-weight",
    "font-style",
    "text-anchor",
    "clip-path",
    "dominant-baseline",
}


def _attributes(style: str) -> str:
    """`fill: #fff; stroke-width: 0.8` → ` fill="#fff" stroke-width="0.8"` (known ones only)."""
    out = []
    for decl in style.split(";"):
        name, sep, value = decl.partition(":")
        name, value = name.strip().lower(), value.strip()
        if name == "font-family":  # the reader's own fonts (Chinese included), not DejaVu's list
            value = "system-ui, sans-serif"
        if sep and name in _PRESENTATION and value:
            out.append(f' {name}="{esc(value.replace(chr(34), chr(39)))}"')
    return "".join(out)


def csp_safe(svg: str) -> Markup:
    """matplotlib's SVG as inline markup that a strict CSP renders as drawn."""
    for rx in _DROP:
        svg = rx.sub("", svg)
    svg = _STYLE_ATTR.sub(lambda m: _attributes(m.group(1)), svg)
    svg = re.sub(
        r'<svg ([^>]*?)width="[^"]*" height="[^"]*"', r'<svg \1class="chart"', svg, count=1
    )
    svg = svg.replace("<svg ", '<svg role="img" ', 1)
    return Markup(svg.strip())


def cost_chart(timeline: Timeline, lang: Lang) -> Markup:
    """The cost-over-time chart of a plan (own vs rent, break-even marked)."""
    from gpuwise.render.chart import chart_svg

    return csp_safe(chart_svg(timeline, lang))


GIB = 2**30
BAR_COLOURS = (
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#76b7b2",
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
    "#86bcb6",
)


def _capacity_marks(capacity_bytes: int, scale_max: int, width: float) -> list[Markup]:
    """The card's capacity: a dashed line across the bar and its size in GiB."""
    x = width * capacity_bytes / scale_max
    line = el(
        "line",
        {
            "x1": f"{x:.1f}",
            "x2": f"{x:.1f}",
            "y1": 0,
            "y2": 52,
            "stroke": "#000",
            "stroke-width": 2,
            "stroke-dasharray": "4,3",
        },
    )
    anchor = "end" if x > width / 2 else "start"
    text = el(
        "text",
        {"x": f"{x:.1f}", "y": 66, "text-anchor": anchor, "font-size": 12},
        t("web.capacity", gib=f"{capacity_bytes / GIB:.1f}"),
    )
    return [line, text]


def memory_bar(breakdown: dict[str, int], capacity_bytes: int | None) -> Markup:
    """One stacked bar of the memory per GPU, a part per component, the card's capacity as a
    line; a legend with each part in GB below."""
    parts = [(k, v) for k, v in breakdown.items() if v > 0]
    total = sum(v for _, v in parts)
    scale_max = max(total, capacity_bytes or 0) or 1
    width, bar_h, left = 640.0, 36.0, 0.0
    rects, legend = [], []
    for i, (name, value) in enumerate(parts):
        w = width * value / scale_max
        colour = BAR_COLOURS[i % len(BAR_COLOURS)]
        label = t(f"part.{name}")
        rects.append(
            el(
                "rect",
                {"x": f"{left:.1f}", "y": 8, "width": f"{w:.1f}", "height": bar_h, "fill": colour},
                el("title", {}, f"{label}: {value / GIB:.2f} GiB"),
            )
        )
        legend.append(
            el(
                "li",
                {},
                el(
                    "svg",
                    {"width": 12, "height": 12, "aria_hidden": "true"},
                    el("rect", {"width": 12, "height": 12, "fill": colour}),
                ),
                f" {label}: {value / GIB:.2f} GiB",
            )
        )
        left += w
    marks = _capacity_marks(capacity_bytes, scale_max, width) if capacity_bytes else []
    svg = el(
        "svg",
        {
            "viewBox": f"0 0 {width:.0f} 72",
            "class": "bar",
            "role": "img",
            "aria-label": t("web.memory_bar", gib=f"{total / GIB:.2f}"),
        },
        *rects,
        *marks,
    )
    return el("figure", {}, svg, el("ul", {"class": "legend"}, *legend))
