"""Tables for `gpuwise bench` and `gpuwise calibrate` (rich)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from gpuwise.i18n import t


def _num(value: float | None, unit: str = "") -> str:
    if value is None:
        return t("bench.na")
    digits = "{:,.1f}" if abs(value) >= 10 else "{:.3g}"
    return digits.format(value) + (f" {unit}" if unit else "")


def _pct(value: float | None) -> str:
    return t("bench.na") if value is None else f"{value * 100:.0f}%"


def _verdict(fig: Mapping[str, Any]) -> str:
    verdict = fig["verdict"]
    text = t(f"bench.verdict_{verdict}")
    if verdict == "low":
        reasons = ", ".join(t(f"bench.cause_{c}") for c in fig["causes"])
        text += f" ({reasons})"
    return text


def figures_table(figures: Sequence[Mapping[str, Any]]) -> Table:
    """Measured figure, datasheet peak, share, healthy share, verdict."""
    table = Table(title=t("bench.title"), title_justify="left")
    for key in (
        "col_figure",
        "col_measured",
        "col_datasheet",
        "col_share",
        "col_healthy",
        "col_verdict",
    ):
        table.add_column(
            t(f"bench.{key}"), justify="left" if key in ("col_figure", "col_verdict") else "right"
        )
    for fig in figures:
        unit = fig["unit"]
        table.add_row(
            t(f"bench.fig_{fig['figure']}"),
            _num(fig["measured"], unit),
            _num(fig.get("datasheet"), unit),
            _pct(fig.get("fraction")),
            _pct(fig.get("healthy_fraction")),
            _verdict(fig),
        )
    return table


def _notes(result: Mapping[str, Any]) -> list[str]:
    res = result["results"]
    notes = []
    if result["smoke"]:
        notes.append(t("bench.note_smoke"))
    elif result["gpu"] is None:
        notes.append(t("bench.note_unknown_gpu", name=result["device"]["name"]))
    if res["host_device"].get("status") == "not_applicable":
        notes.append(t("bench.note_host_na"))
    ar = res["allreduce"]
    if ar.get("ranks", 1) == 1:
        notes.append(t("bench.note_one_rank", backend=ar.get("backend", "")))
    skipped = [m["dtype"] for m in res["matmul"] if m.get("status") != "ok"]
    if skipped:
        notes.append(t("bench.note_not_supported", dtypes=", ".join(skipped)))
    notes.append(t("bench.note_copy_convention"))
    mon = result["monitor"]
    if mon.get("samples"):
        notes.append(
            t(
                "bench.note_monitor",
                samples=mon["samples"],
                temp=_num(mon.get("max_temperature_c")),
                power=_num(mon.get("max_power_w")),
                limit=_num(mon.get("power_limit_w")),
                reasons=", ".join(mon.get("throttle_reasons") or []) or "-",
            )
        )
    return notes


def bench_view(result: Mapping[str, Any], saved: str | None) -> RenderableType:
    """The whole `bench` output: device line, figures, shapes of the best matmuls, notes."""
    dev = result["device"]
    head = t(
        "bench.device_line",
        name=dev["name"],
        kind=dev["kind"],
        index=dev["index"],
        gpu=result["gpu"] or t("bench.na"),
        build=dev["build"],
        plan=result["plan"],
        seconds=f"{result['seconds']:.1f}",
    )
    parts: list[RenderableType] = [Text(head), figures_table(result["figures"])]
    best = [
        t(
            "bench.best_shape",
            dtype=m["dtype"],
            shape="×".join(map(str, m["best"]["shape"])),
            spread=f"{m['best']['spread'] * 100:.0f}",
        )
        for m in result["results"]["matmul"]
        if m.get("status") == "ok"
    ]
    parts += [Text(line) for line in best + _notes(result)]
    if saved:
        parts.append(Text(t("bench.saved", path=saved)))
    return Group(*parts)


def calibration_table(entries: Sequence[Mapping[str, Any]], path: str) -> RenderableType:
    """What `calibrate` wrote or finds: GPU, metric, engine, measured, datasheet, share, date."""
    if not entries:
        return Text(t("calibrate.none", path=path))
    table = Table(title=t("calibrate.title", path=path), title_justify="left")
    for key in (
        "col_gpu",
        "col_metric",
        "col_engine",
        "col_measured",
        "col_datasheet",
        "col_share",
        "col_date",
    ):
        table.add_column(t(f"calibrate.{key}"))
    for e in entries:
        table.add_row(
            e["gpu"],
            t(f"calibrate.metric_{e['metric']}"),
            e["engine"],
            _num(e["measured_value"], e["unit"]),
            _num(e["datasheet_value"], e["unit"]),
            _pct(e["fraction"]),
            str(e["measured_on"]),
        )
    return table


def calibrated_note(sources: Sequence[str]) -> str | None:
    """'your bench of DATE (gpu)' when an estimate used `gpuwise calibrate`'s measurements."""
    import re

    hits = [m for s in sources if (m := re.fullmatch(r"measured-(.+)-(\d{4}-\d{2}-\d{2})", s))]
    if not hits:
        return None
    return "; ".join(t("calibrate.estimate_note", gpu=m.group(1), date=m.group(2)) for m in hits)
