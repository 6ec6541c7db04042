"""The report of `gpuwise doctor`: a summary table, then each finding with its fix."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from gpuwise.i18n import t

_STYLE = {"ok": "green", "info": "cyan", "warn": "yellow", "error": "bold red"}
_STATUS_STYLE = {"found": "green", "missing": "dim", "failed": "red", "timeout": "yellow"}


def summary_table(rows: list[dict[str, str]]) -> Table:
    """One row per probe: what, status, what it saw."""
    table = Table(title=t("doctor.summary_title"), title_justify="left")
    table.add_column(t("doctor.col_check"))
    table.add_column(t("doctor.col_status"))
    table.add_column(t("doctor.col_seen"), overflow="fold")
    for row in rows:
        status = Text(
            t(f"doctor.status.{row['status']}"), style=_STATUS_STYLE.get(row["status"], "")
        )
        table.add_row(row["label"], status, row["value"])
    return table


def render_finding(console: Console, f: dict[str, Any]) -> None:
    """Level badge and title, then what was seen, why it matters, and the fix."""
    level = t(f"doctor.level.{f['level']}")
    badge = Text(f"[{level}] ", style=_STYLE.get(f["level"], ""))
    console.print(badge + Text(f["title"], style="bold"), soft_wrap=True)
    for label, key in (("doctor.seen", "detail"), ("doctor.why", "why"), ("doctor.fix", "fix")):
        if f.get(key):
            console.print(Text(f"  {t(label)} ", style="dim") + Text(f[key]), soft_wrap=True)
    for cmd in f.get("commands") or []:
        console.print(
            Text(f"    {cmd}", style="dim" if cmd.startswith("#") else "bold"), soft_wrap=True
        )


def render_doctor(console: Console, report: dict[str, Any]) -> None:
    """The whole report (the JSON shape of `gpuwise doctor --json`)."""
    console.print(summary_table(report["summary"]))
    findings = report["findings"]
    n = {
        lvl: sum(1 for f in findings if f["level"] == lvl)
        for lvl in ("error", "warn", "info", "ok")
    }
    text = t(
        "doctor.counts",
        elapsed=report["elapsed_s"],
        error=n["error"],
        warn=n["warn"],
        info=n["info"],
        ok=n["ok"],
    )
    console.print(text)
    for f in findings:
        console.print()
        render_finding(console, f)
