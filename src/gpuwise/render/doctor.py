"""The report of `gpuwise doctor`: a summary table, then each finding with its fix; for a pasted
report also what was recognised, where each fact came from, and what is missing."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from gpuwise.doctor.report_model import (
    DoctorReport,
    FindingEntry,
    MissingFact,
    PasteInfo,
    SummaryRow,
)
from gpuwise.i18n import t

_STYLE = {"ok": "green", "info": "cyan", "warn": "yellow", "error": "bold red"}
_STATUS_STYLE = {"found": "green", "missing": "dim", "failed": "red", "timeout": "yellow"}
AREA_LABELS = {
    "system": "doctor.row.system",
    "wsl": "doctor.row.wsl",
    "container": "doctor.row.container",
    "nvidia_smi": "doctor.row.nvidia",
    "kernel": "doctor.row.kernel",
    "kmsg": "doctor.row.kmsg",
    "toolkit": "doctor.row.toolkit",
    "torch": "doctor.row.torch",
    "amd": "doctor.row.amd",
    "intel": "doctor.row.intel",
    "ascend": "doctor.row.ascend",
    "ollama": "doctor.row.ollama",
    "nccl_smoke": "doctor.row.nccl",
}


def _status_cell(row: SummaryRow) -> Text:
    """The row's verdict (its worst finding) when there is one, else what the probe saw."""
    verdict = row.verdict
    if verdict:
        return Text(t(f"doctor.level.{verdict}"), style=_STYLE.get(verdict, ""))
    return Text(t(f"doctor.status.{row.status}"), style=_STATUS_STYLE.get(row.status, ""))


def summary_table(rows: list[SummaryRow], title: str | None = None) -> Table:
    """One row per probe: what, verdict, what it saw."""
    table = Table(title=title or t("doctor.summary_title"), title_justify="left")
    table.add_column(t("doctor.col_check"))
    table.add_column(t("doctor.col_status"))
    table.add_column(t("doctor.col_seen"), overflow="fold")
    for row in rows:
        table.add_row(row.label, _status_cell(row), row.value)
    return table


def render_finding(console: Console, f: FindingEntry) -> None:
    """Level badge and title, then what was seen, why it matters, and the fix."""
    level = t(f"doctor.level.{f.level}")
    badge = Text(f"[{level}] ", style=_STYLE.get(f.level, ""))
    console.print(badge + Text(f.title, style="bold"), soft_wrap=True)
    for label, text in (("doctor.seen", f.detail), ("doctor.why", f.why), ("doctor.fix", f.fix)):
        if text:
            console.print(Text(f"  {t(label)} ", style="dim") + Text(text), soft_wrap=True)
    for cmd in f.commands:
        console.print(
            Text(f"    {cmd}", style="dim" if cmd.startswith("#") else "bold"), soft_wrap=True
        )


def _render_paste(console: Console, paste: PasteInfo) -> None:
    """What was recognised in the paste and which facts came from where."""
    console.print(Text(t("doctor.paste.read"), style="bold"))
    for area, blocks in sorted(paste.facts_from.items()):
        name = t(AREA_LABELS.get(area, "doctor.row.system")) if area in AREA_LABELS else area
        console.print(
            Text("  " + t("doctor.paste.facts_from", area=name, blocks="; ".join(blocks))),
            soft_wrap=True,
        )


def _render_missing(console: Console, missing: list[MissingFact]) -> None:
    if not missing:
        return
    console.print()
    console.print(Text(t("doctor.paste.missing_title"), style="bold"))
    for i, item in enumerate(missing):
        what = t(f"doctor.paste.missing.{item.fact}")
        console.print(Text(f"  {what}:"), soft_wrap=True)
        console.print(Text(f"    {item.command}", style="bold" if i == 0 else ""), soft_wrap=True)


def render_doctor(console: Console, report: DoctorReport) -> None:
    """The whole report (the JSON shape of `gpuwise doctor --json` / `--from … --json`)."""
    paste = report.paste
    title = t("doctor.paste.title") if paste else None
    console.print(summary_table(report.summary, title))
    if paste:
        _render_paste(console, paste)
    findings = report.findings
    n = {lvl: sum(1 for f in findings if f.level == lvl) for lvl in ("error", "warn", "info", "ok")}
    text = t(
        "doctor.counts",
        elapsed=report.elapsed_s,
        error=n["error"],
        warn=n["warn"],
        info=n["info"],
        ok=n["ok"],
    )
    console.print(text)
    for f in findings:
        console.print()
        render_finding(console, f)
    if paste:
        _render_missing(console, paste.missing)
