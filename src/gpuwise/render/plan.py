"""Console and Markdown output of `gpuwise plan`."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from gpuwise.advise.fired import money
from gpuwise.i18n import t
from gpuwise.render.estimate import gib


def _where(o: dict[str, Any]) -> str:
    if o["kind"] == "own":
        return t("plan.owned") if o["already_owned"] else t("plan.buy")
    return f"{o['provider']} {o['instance']} ({t('billing.' + o['billing'])})"


def options_table(report: dict[str, Any]) -> Table:
    """Top options: kind, hardware, where/billing, total and monthly cost, time, memory, risks."""
    cur = report["currency"]
    table = Table(
        title=t("plan.options_title", n=report["options_considered"]),
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for key, justify in (
        ("plan.col_rank", "right"),
        ("plan.col_hardware", "left"),
        ("plan.col_where", "left"),
        ("plan.col_total", "right"),
        ("plan.col_monthly", "right"),
        ("plan.col_time", "right"),
        ("plan.col_memory", "right"),
        ("plan.col_risks", "left"),
    ):
        table.add_column(t(key), justify=justify)  # type: ignore[arg-type]
    for i, o in enumerate(report["options"], 1):
        time = f"{o['time_hours']:,.1f}" if o["time_hours"] is not None else "—"
        mem = f"{gib(o['memory_per_gpu_bytes'])}/{gib(o['memory_capacity_bytes'])}"
        risks = "; ".join(r["id"] for r in o["risks"]) or "—"
        mark = "*" if o["pareto"] else ""
        total = money(o["total_cost"], cur) if o["hardware_priced"] else t("plan.unpriced_total")
        monthly = money(o["monthly_cost"], cur) if o["hardware_priced"] else "—"
        table.add_row(
            f"{i}{mark}", f"{o['gpu']}×{o['count']}", _where(o), total, monthly, time, mem, risks
        )
    return table


def render_plan(console: Console, report: dict[str, Any]) -> None:
    """Answers first, then the options, then why (rules) and what to change when nothing fits."""
    for line in report["answer_text"]:
        console.print(line)
    console.print()
    if report["options"]:
        console.print(options_table(report))
        console.print(t("plan.pareto_note"))
    for s in report["suggestions"]:
        console.print("→ " + s["text"])
    if report["rules"]:
        console.print()
        console.print(t("plan.rules_title"))
        for r in report["rules"]:
            console.print(f"• [{r['id']}] {r['text']}")
    if report["options"]:
        console.print()
        console.print(t("plan.risks_title"))
        for o in report["options"][:3]:
            for r in o["risks"]:
                console.print(f"• {o['gpu']}×{o['count']} {_where(o)}: {r['text']}")


def markdown(report: dict[str, Any]) -> str:
    """A report a user can send to their manager."""
    cur = report["currency"]
    s = report["scenario"]
    lines = [f"# {t('plan.md_title')}: {s.get('name') or s['workload']['model']}", ""]
    lines += [f"- {x}" for x in report["answer_text"]] + ["", f"## {t('plan.md_options')}", ""]
    lines.append(
        "| # | "
        + " | ".join(
            t(k)
            for k in (
                "plan.col_hardware",
                "plan.col_where",
                "plan.col_total",
                "plan.col_monthly",
                "plan.col_time",
                "plan.col_risks",
            )
        )
        + " |"
    )
    lines.append("|---|---|---|---:|---:|---:|---|")
    for i, o in enumerate(report["options"], 1):
        time = f"{o['time_hours']:,.1f}" if o["time_hours"] is not None else "—"
        risks = "; ".join(r["text"] for r in o["risks"]) or "—"
        lines.append(
            f"| {i} | {o['gpu']}×{o['count']} | {_where(o)} | "
            f"{money(o['total_cost'], cur)} | {money(o['monthly_cost'], cur)} | {time} | "
            f"{risks} |"
        )
    lines += ["", f"## {t('plan.rules_title')}", ""]
    lines += [f"- **{r['id']}**: {r['text']}" for r in report["rules"]]
    if report["suggestions"]:
        lines += ["", f"## {t('plan.md_fixes')}", ""] + [
            f"- {x['text']}" for x in report["suggestions"]
        ]
    lines += ["", t("plan.md_footer")]
    return "\n".join(lines) + "\n"
