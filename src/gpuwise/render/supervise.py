"""Tables for `gpuwise supervise --report` (one summary table and one table of stops per job)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from rich.console import Console
from rich.table import Table

from gpuwise.i18n import t
from gpuwise.render.out import fmt_num


def duration(seconds: float | None) -> str:
    """Seconds as a short human duration (45 s, 12.5 min, 3.2 h)."""
    if seconds is None:
        return "—"
    if seconds < 120:
        return f"{seconds:.1f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.2f} h"


def render_report(console: Console, reports: list[dict[str, Any]]) -> None:
    """Every job's summary and stops."""
    for report in reports:
        console.print(_summary(report))
        if report["stops"]:
            console.print(_stops(report["stops"]))


def _summary(r: dict[str, Any]) -> Table:
    table = Table(title=t("supervise.report_title", job=r["job"]), show_header=False)
    table.add_column("", style="bold")
    table.add_column("")
    yes_no = t("supervise.yes") if r["finished"] else t("supervise.no")
    rows = [
        ("supervise.r_runs", f"{r['runs']} / {r['attempts']}  ({', '.join(r['hosts'])})"),
        ("supervise.r_wall", f"{duration(r['wall_s'])} / {duration(r['running_s'])}"),
        ("supervise.r_finished", yes_no),
        ("supervise.r_interruptions", f"{r['interruptions']} / {r['failures']}"),
        ("supervise.r_lost", duration(r["lost_s"])),
        ("supervise.r_restart", duration(r["restart_s"])),
        ("supervise.r_checkpoints", f"{r['checkpoints']} / {r['last_checkpoint'] or '—'}"),
    ]
    for key, value in rows:
        table.add_row(t(key), value)
    table.add_row(*_cost_row(r))
    table.add_row(t("supervise.r_plan"), _plan_text(r["plan_inputs"], r["offer"]))
    for clamp in r.get("plan_clamps") or []:
        note = t(
            "supervise.plan_clamped",
            flag=clamp["flag"],
            measured=fmt_num(clamp["measured"], 2),
            used=fmt_num(clamp["used"], 2),
            running=duration(r["running_s"]),
        )
        table.add_row("", note)
    if r.get("cadence"):
        c = r["cadence"]
        table.add_row(t("supervise.r_cadence", notice=fmt_num(c["notice_s"])), _cadence_text(c))
    return table


def _cost_row(r: dict[str, Any]) -> tuple[str, str]:
    offer, cost = r["offer"], r["cost"]
    if not offer or not cost:
        return t("supervise.r_cost", price="?", currency="", offer="—"), t("supervise.no_price")
    label = t(
        "supervise.r_cost",
        price=fmt_num(offer["price_per_hour"], 2),
        currency=offer["currency"],
        offer=offer["label"],
    )
    value = (
        f"{fmt_num(cost['total_cost'], 2)} {offer['currency']}"
        f"  (= {fmt_num(cost['lost_hours'], 2)} h + {fmt_num(cost['restart_hours'], 2)} h)"
    )
    return label, value


def _plan_text(p: dict[str, float | None], offer: dict[str, Any] | None) -> str:
    parts = []
    if offer:
        parts.append(f"--vs {offer['label']}")
    for key, flag, digits in (
        ("spot_interruptions_per_day", "--spot-interruptions-per-day", 2),
        ("restart_min", "--restart-min", 1),
        ("checkpoint_min", "--checkpoint-min", 1),
    ):
        value = p.get(key)
        if value is not None:
            parts.append(f"{flag} {value:.{digits}f}")
    return " ".join(parts) if parts else "—"


def _cadence_text(c: dict[str, Any]) -> str:
    save, usable = c["median_save_s"], c["usable_s"]
    if save is None:
        return t("supervise.cadence_unknown")
    if c["save_fits_notice"]:
        return t("supervise.cadence_ok", save=fmt_num(save), usable=fmt_num(usable))
    interval = c["median_interval_s"]
    loss = c["expected_loss_without_notice_save_s"]
    return t(
        "supervise.cadence_bad",
        save=fmt_num(save),
        usable=fmt_num(usable),
        loss=fmt_num(loss),
        interval=fmt_num(interval),
    )


def _stops(stops: list[dict[str, Any]]) -> Table:
    table = Table(title=t("supervise.stops_title"))
    for key in ("col_when", "col_cause", "col_lost", "col_saved", "col_restart"):
        table.add_column(t(f"supervise.{key}"))
    for s in stops:
        when = dt.datetime.fromtimestamp(s["t"], dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
        saved = t("supervise.yes") if s["checkpoint_on_notice"] else t("supervise.no")
        cause = t("supervise.cause_killed", cause=s["cause"]) if s.get("killed") else s["cause"]
        table.add_row(when, cause, duration(s["lost_s"]), saved, duration(s["restart_s"]))
    return table
