"""The breakdown table and verdict of `gpuwise estimate`."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from gpuwise.estimate.report_model import EstimateReport, MemoryReport
from gpuwise.i18n import t

GIB = 1024**3
BAR_WIDTH = 30


def gib(n: float) -> str:
    """Bytes as GiB with two decimals (what nvidia-smi's MiB divided by 1024 gives)."""
    return f"{n / GIB:,.2f}"


def breakdown_table(memory: MemoryReport) -> Table:
    """One row per non-zero part with its share as a bar."""
    total = memory.device_total_bytes or 1
    table = Table(title=t("est.breakdown_title"), title_justify="left")
    table.add_column(t("est.col_part"))
    table.add_column("GiB", justify="right")
    table.add_column("%", justify="right")
    table.add_column("")
    for key, value in memory.breakdown.items():
        if value <= 0:
            continue
        share = value / total
        table.add_row(
            t(f"part.{key}"),
            gib(value),
            f"{100 * share:.1f}",
            "█" * max(1, round(share * BAR_WIDTH)),
        )
    return table


def render_estimate(console: Console, report: EstimateReport) -> None:
    """Print the model line, the breakdown, the totals and, with a GPU, the verdict."""
    m, mem, inputs = report.model, report.memory, report.inputs
    console.print(
        t(
            "est.header",
            name=m.name,
            params=m.params_b,
            mode=inputs["mode"],
            quant=inputs["quant"],
            engine=inputs["engine"],
            gpus=inputs["gpus"],
        )
    )
    console.print(breakdown_table(mem))
    console.print(t("est.allocated", value=gib(mem.allocated_peak_bytes)))
    console.print(
        t(
            "est.device_total",
            value=gib(mem.device_total_bytes),
            low=gib(mem.low_bytes),
            high=gib(mem.high_bytes),
        )
    )
    if mem.band_p10_bytes is not None and mem.band_p90_bytes is not None:
        console.print(
            t("est.device_band", low=gib(mem.band_p10_bytes), high=gib(mem.band_p90_bytes))
        )
    g = report.gpu
    if g is not None:
        verdict = "est.fits" if report.fits else "est.does_not_fit"
        headroom = gib(abs(report.headroom_bytes or 0))
        console.print(t(verdict, gpu=g.name, usable=gib(g.usable_bytes), headroom=headroom))
        console.print(t("est.limits", batch=report.max_batch, context=report.max_context))
    if report.speed is not None:
        console.print(speed_table(report.speed))
    for note in report.notes:
        console.print("• " + t(note.key, **note.params))


SPEED_ROWS = (
    ("prefill_tokens_per_s", "speed.prefill", "{:,.0f}"),
    ("decode_tokens_per_s", "speed.decode", "{:,.1f}"),
    ("time_to_first_token_s", "speed.ttft", "{:,.3f}"),
    ("serving_tokens_per_s", "speed.serving", "{:,.0f}"),
    ("train_tokens_per_s", "speed.train", "{:,.0f}"),
    ("step_time_s", "speed.step", "{:,.3f}"),
    ("train_time_h", "speed.train_time", "{:,.1f}"),
    ("offload_fraction", "speed.offload", "{:.0%}"),
)


def speed_table(speed: dict[str, Any]) -> Table:
    """Throughputs and times, then the bound and the efficiency factors used."""
    table = Table(title=t("speed.title"), show_header=False, title_justify="left")
    table.add_column(style="bold")
    table.add_column(justify="right")
    table.add_column(justify="right", style="dim")
    band = speed.get("band") or {}
    for key, label, fmt in SPEED_ROWS:
        if speed.get(key) is not None:
            low_high = band.get(key)
            shown = (
                t("speed.band", low=fmt.format(low_high[0]), high=fmt.format(low_high[1]))
                if low_high
                else ""
            )
            table.add_row(t(label), fmt.format(speed[key]), shown)
    table.add_row(t("speed.bound"), t(f"bound.{speed['bound']}"))
    if speed.get("serving_bound"):
        table.add_row(t("speed.serving_bound"), t(f"bound.{speed['serving_bound']}"))
    factors = speed.get("factors", {})
    shown = ", ".join(f"{k}={v}" for k, v in factors.items() if k != "sources")
    table.add_row(t("speed.factors"), shown)
    from gpuwise.render.bench import calibrated_note

    note = calibrated_note(factors.get("sources", []))
    if note:
        table.add_row(t("calibrate.estimate_row"), note)
    return table
