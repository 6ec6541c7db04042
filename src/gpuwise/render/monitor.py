"""Tables for `watch`, `record`, `runs` and `runs show` (rich); N/A for what was not readable."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from gpuwise.i18n import t
from gpuwise.monitor.alerts import Alert
from gpuwise.monitor.model import Sample

GIB = 1024**3
MIB = 1024**2


def na(value: Any, fmt: str = "{:.0f}", unit: str = "") -> str:
    """A value for a cell, or N/A."""
    if value is None:
        return t("monitor.na")
    return fmt.format(value) + unit


def gib(value: float | None) -> str:
    """Bytes as GiB with one decimal (MiB below 1 GiB), or N/A."""
    if value is not None and abs(value) < GIB:
        return na(value / MIB, "{:.0f}", " MiB")
    return na(value / GIB if value is not None else None, "{:.1f}", " GiB")


def energy(kwh: float | None) -> str:
    """Energy as kWh from 1 kWh up, else as Wh with three significant digits; N/A for None."""
    if kwh is None:
        return t("monitor.na")
    return f"{kwh:,.2f} kWh" if kwh >= 1 else f"{kwh * 1000:.3g} Wh"


def money(amount: float) -> str:
    """Money with two decimals, or two significant digits below 0.01."""
    return f"{amount:,.2f}" if abs(amount) >= 0.01 or amount == 0 else f"{amount:.2g}"


def when(ts: float | None) -> str:
    """A Unix time as local 'YYYY-MM-DD HH:MM:SS'."""
    if ts is None:
        return "—"
    return dt.datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M:%S")


def duration(seconds: float | None) -> str:
    """Seconds as '1h 02m 03s' / '2m 05s' / '4.2s'."""
    if seconds is None:
        return "—"
    if seconds < 60:
        return f"{seconds:.1f}s"
    m, s = divmod(round(seconds), 60)
    h, m = divmod(m, 60)
    return f"{h}h {m:02d}m {s:02d}s" if h else f"{m}m {s:02d}s"


def alert_text(a: Alert) -> str:
    """An alert in the user's language."""
    params = dict(a.params)
    if "meaning_key" in params:
        params["meaning"] = t(params.pop("meaning_key"))
    return f"{a.device}: {t(a.key, **params)}"


def _table(title: str, columns: Sequence[tuple[str, str]]) -> Table:
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    for key, justify in columns:
        wrap = key in (
            "monitor.col_name",
            "runs.col_command",
            "monitor.col_throttle",
            "monitor.col_process",
        )
        table.add_column(t(key), justify=justify, no_wrap=not wrap)  # type: ignore[arg-type]
    return table


def watch_view(sample: Sample, alerts: Sequence[Alert], processes: bool = True) -> RenderableType:
    """The live view: one row per GPU, the processes, the host, warnings."""
    gpus = _table(
        t("monitor.watch_title", time=when(sample.t)),
        [
            ("monitor.col_gpu", "left"),
            ("monitor.col_name", "left"),
            ("monitor.col_memory", "right"),
            ("monitor.col_util", "right"),
            ("monitor.col_temp", "right"),
            ("monitor.col_power", "right"),
            ("monitor.col_sm_clock", "right"),
            ("monitor.col_throttle", "left"),
        ],
    )
    for g in sample.gpus:
        frac = g.memory_fraction
        gpus.add_row(
            g.key,
            g.name,
            f"{gib(g.memory_used_bytes)} / {gib(g.memory_total_bytes)}"
            + (f" ({frac * 100:.0f}%)" if frac is not None else ""),
            na(g.utilization_pct, unit="%"),
            na(g.temperature_c, unit=" °C"),
            na(g.power_w) + " / " + na(g.power_limit_w, unit=" W"),
            na(g.sm_clock_mhz, unit=" MHz"),
            ", ".join(r for r in (g.throttle_reasons or ()) if r != "gpu_idle") or "—"
            if g.throttle_reasons is not None
            else t("monitor.na"),
        )
    parts: list[RenderableType] = [gpus] if sample.gpus else [Text(no_gpu_line(sample))]
    if processes:
        parts.append(_process_table(sample))
    if sample.host is not None:
        parts.append(Text(host_line(sample)))
    parts.extend(Text("⚠ " + alert_text(a)) for a in alerts)
    return Group(*parts)


def no_gpu_line(sample: Sample) -> str:
    """What each vendor source said when no GPU was read."""
    detail = ", ".join(f"{v}: {s}" for v, s in sorted(sample.sources.items()))
    return t("monitor.no_gpu", detail=detail or "—")


def host_line(sample: Sample) -> str:
    """The host in one line."""
    h = sample.host
    assert h is not None
    return t(
        "monitor.host_line",
        cpu=na(h.cpu_percent, "{:.0f}", "%"),
        used=gib(h.memory_used_bytes),
        total=gib(h.memory_total_bytes),
    )


def _process_table(sample: Sample) -> RenderableType:
    table = _table(
        t("monitor.proc_title"),
        [
            ("monitor.col_gpu", "left"),
            ("monitor.col_pid", "right"),
            ("monitor.col_memory", "right"),
            ("monitor.col_process", "left"),
        ],
    )
    rows = [(g.key, p) for g in sample.gpus for p in (g.processes or ())]
    for key, p in sorted(rows, key=lambda r: -(r[1].gpu_memory_bytes or 0)):
        table.add_row(key, str(p.pid), gib(p.gpu_memory_bytes), p.name or "—")
    if rows:
        return table
    unknown = [g.key for g in sample.gpus if g.processes is None]
    if unknown:
        return Text(t("monitor.procs_unknown", gpus=", ".join(unknown)))
    return Text(t("monitor.no_processes"))


# ---------------------------------------------------------------- record / runs show


def render_summary(console: Console, s: dict[str, Any]) -> None:
    """A run's summary: header, GPU peaks, the command's processes, energy and cost, estimate."""
    run = s["run"]
    console.print(
        t(
            "monitor.run_header",
            id=run["id"],
            name=run["name"],
            status=t(f"runs.status_{run['status']}"),
            code=na(run["exit_code"]),
            duration=duration(run["duration_s"]),
            samples=s["samples"],
        )
    )
    if s["gpus"]:
        console.print(_peaks_table(s))
    if s["processes"]:
        console.print(_proc_peaks(s))
    host = s["host"]
    if host["peak_tree_rss_bytes"] is not None:
        console.print(
            t(
                "monitor.tree_line",
                rss=gib(host["peak_tree_rss_bytes"]),
                procs=na(host["peak_tree_procs"]),
                cpu=na(host["mean_tree_cpu_percent"]),
            )
        )
    console.print(_energy_line(s))
    if "estimate" in s:
        console.print(_estimate_line(s["estimate"]))
    if "tokens" in s:
        for line in tokens_lines(s["tokens"]):
            console.print(line)
    for x in s["xid"]:
        console.print(
            "⚠ "
            + t("monitor.warn_xid", xid=x["xid"], meaning=t(_xid_key(x["xid"])))
            + f" ({x['vendor']}:{x['gpu']}, {when(x['t'])})"
        )
    for key in s["notes"]:
        console.print(Text(t(key), style="dim"))


def _xid_key(xid: int) -> str:
    from gpuwise.monitor.alerts import xid_meaning_key

    return xid_meaning_key(xid)


def _peaks_table(s: dict[str, Any]) -> Table:
    table = _table(
        t("monitor.peaks_title"),
        [
            ("monitor.col_gpu", "left"),
            ("monitor.col_name", "left"),
            ("monitor.col_peak_mem", "right"),
            ("monitor.col_run_mem", "right"),
            ("monitor.col_peak_temp", "right"),
            ("monitor.col_peak_power", "right"),
            ("monitor.col_mean_power", "right"),
            ("monitor.col_energy", "right"),
            ("monitor.col_throttle", "left"),
        ],
    )
    for g in s["gpus"]:
        kwh = g["energy_j"] / 3.6e6 if g["energy_j"] is not None else None
        method = t(f"monitor.method_{g['energy_method']}") if g["energy_method"] else ""
        table.add_row(
            f"{g['vendor']}:{g['gpu']}",
            g["name"],
            f"{gib(g['peak_used_bytes'])} / {gib(g['memory_total_bytes'])}",
            gib(g["peak_run_bytes"]),
            na(g["peak_temperature_c"], unit=" °C"),
            na(g["peak_power_w"], unit=" W"),
            na(g["mean_power_w"], unit=" W"),
            energy(kwh) + (f" ({method})" if method else ""),
            ", ".join(g["throttle"]) or "—",
        )
    return table


def _proc_peaks(s: dict[str, Any]) -> Table:
    table = _table(
        t("monitor.proc_peaks_title"),
        [
            ("monitor.col_gpu", "left"),
            ("monitor.col_pid", "right"),
            ("monitor.col_peak_mem", "right"),
        ],
    )
    for p in s["processes"][:20]:
        table.add_row(f"{p['vendor']}:{p['gpu']}", str(p["pid"]), gib(p["peak_gpu_memory_bytes"]))
    return table


def _energy_line(s: dict[str, Any]) -> str:
    kwh = s["energy_kwh"]
    if kwh is None:
        return t("monitor.energy_na")
    cost = s.get("cost")
    if cost is None:
        return t("monitor.energy_line", energy=energy(kwh))
    tariff = cost["tariff"] or t("monitor.user_tariff")
    return t(
        "monitor.energy_cost_line",
        energy=energy(kwh),
        amount=money(cost["amount"]),
        currency=cost["currency"],
        price=f"{cost['price_per_kwh']:.4g}",
        tariff=tariff,
        source=cost["source"] or "—",
    ) + (" " + t("monitor.energy_partial") if cost["partial"] else "")


def _estimate_line(e: dict[str, Any]) -> str:
    err = e["error_pct"]
    return t(
        "monitor.estimate_line",
        model=e["model"],
        mode=e["mode"],
        estimated=gib(e["estimated_bytes"]),
        measured=gib(e["measured_bytes"]),
        kind=t(f"monitor.measured_{e['measured_kind']}"),
        error=f"{err:+.0f}%" if err is not None else t("monitor.na"),
    )


def _rate(value: float | None) -> str:
    return f"{value:,.1f}" if value is not None else t("monitor.na")


def _error(value: float | None, reason_key: str) -> str:
    return f"{value:+.0f}%" if value is not None else t(reason_key)


def tokens_lines(k: dict[str, Any]) -> list[str]:
    """The engine's token figures of a run, with the estimate beside them where comparable."""
    if not k["readings"]:
        return [t("monitor.tokens_none", url=k["url"], problem=k["last_problem"] or "—")]
    out = [
        t(
            "monitor.tokens_line",
            engine=k["engine"],
            readings=k["readings"],
            span=duration(k["span_s"]),
            prompt=na(k["prompt_tokens"]),
            generated=na(k["generated_tokens"]),
            throughput=_rate(k["generated_tokens_per_s"]),
            running=na(k["max_running"]),
        )
    ]
    if k["decode_tokens_per_s_per_sequence"] is not None:
        out.append(
            t(
                "monitor.tokens_decode",
                measured=_rate(k["decode_tokens_per_s_per_sequence"]),
                estimated=_rate(k["estimated_decode_tokens_per_s"]),
                error=_error(k["decode_error_pct"], "monitor.tokens_not_compared"),
            )
        )
    if k["prefill_tokens_per_s"] is not None:
        out.append(
            t(
                "monitor.tokens_prefill",
                measured=_rate(k["prefill_tokens_per_s"]),
                timer=t(f"monitor.timer_{k['prefill_timer']}"),
                estimated=_rate(k["estimated_prefill_tokens_per_s"]),
                error=_error(k["prefill_error_pct"], "monitor.tokens_ttft_not_compared"),
            )
        )
    return out


def runs_table(runs: Sequence[dict[str, Any]]) -> Table:
    """`gpuwise runs`: one row per run (dicts with id, name, status, started_at, duration_s…)."""
    table = _table(
        t("runs.title", n=len(runs)),
        [
            ("runs.col_id", "right"),
            ("runs.col_name", "left"),
            ("runs.col_status", "left"),
            ("runs.col_exit", "right"),
            ("runs.col_started", "left"),
            ("runs.col_duration", "right"),
            ("runs.col_source", "left"),
            ("runs.col_command", "left"),
        ],
    )
    for r in runs:
        table.add_row(
            str(r["id"]),
            r["name"],
            t(f"runs.status_{r['status']}"),
            na(r["exit_code"]),
            when(r["started_at"]),
            duration(r["duration_s"]),
            r["source"],
            " ".join(r["command"])[:60],
        )
    return table
