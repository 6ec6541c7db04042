"""The audit report on a console: a table of findings, then how to fix each, then what could
not be checked and the exit code."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from gpuwise.i18n import t


def render_audit(console: Console, report: dict[str, Any]) -> None:
    """Findings table (worst first), fixes with commands and sources, skipped checks, summary."""
    areas = ", ".join(t(f"audit.area.{a}") for a in report["areas"])
    root = t("audit.render.as_root") if report["as_root"] else ""
    console.print(t("audit.render.title", areas=areas, seconds=report["elapsed_s"], root=root))
    findings = report["findings"]
    if not findings:
        console.print(t("audit.render.none"))
    else:
        table = Table(show_lines=False)
        for key in ("col_severity", "col_area", "col_finding", "col_evidence"):
            table.add_column(t(f"audit.render.{key}"), overflow="fold")
        for f in findings:
            table.add_row(
                t(f"audit.sev.{f['severity']}"),
                t(f"audit.area.{f['area']}"),
                f"{f['title']}\n[{f['rule']}]",
                f["evidence"],
            )
        console.print(table)
        _fixes(console, findings)
    if report["skipped"]:
        console.print(f"\n{t('audit.render.skipped')}:")
        for s in report["skipped"]:
            area = t(f"audit.area.{s['area']}")
            console.print(f"  - {area}: {s['text']}")
    worst = t(f"audit.sev.{report['worst']}")
    console.print("\n" + t("audit.render.summary", worst=worst, code=report["exit_code"]))


def _fixes(console: Console, findings: list[dict[str, Any]]) -> None:
    console.print(f"\n{t('audit.render.fixes')}:")
    for f in findings:
        if f["severity"] == "info" and not f["commands"]:
            continue
        console.print(f"\n[{f['rule']}] {f['title']}")
        console.print(f"  {f['fix']}")
        for cmd in f["commands"]:
            console.print(f"    $ {cmd}")
        for url in f["refs"][:2]:
            console.print(f"  {t('audit.render.source')}: {url}")
