"""`gpuwise plan [SCENARIO]`: buy or rent, which card, which cloud and billing, with reasons."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from gpuwise.i18n import t

PERSONAS = ("individual", "small-team", "enterprise-domestic", "cost-extreme")


def register(app: typer.Typer) -> None:
    """Add `plan` to the root app."""

    @app.command("plan", help=t("plan.help"))
    def plan(
        scenario: Path = typer.Argument(None, help=t("plan.arg_scenario")),
        persona: str = typer.Option(None, "--persona", help=t("plan.opt_persona")),
        example: bool = typer.Option(False, "--example", help=t("plan.opt_example")),
        model: str = typer.Option(None, "--model", help=t("plan.opt_model")),
        workload: str = typer.Option(None, "--workload", help=t("plan.opt_workload")),
        mode: str = typer.Option(None, "--mode", help=t("est.opt_mode")),
        dataset_tokens: float = typer.Option(None, "--dataset-tokens", help=t("plan.opt_tokens")),
        epochs: float = typer.Option(None, "--epochs", help=t("est.opt_epochs")),
        runs_per_month: float = typer.Option(None, "--runs-per-month", help=t("plan.opt_runs")),
        concurrency: int = typer.Option(None, "--concurrency", help=t("est.opt_concurrency")),
        context: int = typer.Option(None, "--context", help=t("est.opt_context")),
        target_tps: float = typer.Option(None, "--target-tokens-per-s", help=t("plan.opt_target")),
        months: float = typer.Option(None, "--months", help=t("plan.opt_months")),
        hours_per_day: float = typer.Option(None, "--hours-per-day", help=t("plan.opt_hours")),
        budget: float = typer.Option(None, "--budget", help=t("plan.opt_budget")),
        budget_per: str = typer.Option(None, "--budget-per", help=t("plan.opt_budget_per")),
        currency: str = typer.Option(None, "--currency", help=t("plan.opt_currency")),
        region: str = typer.Option(None, "--region", help=t("plan.opt_region")),
        no_cloud: bool = typer.Option(False, "--data-stays", help=t("plan.opt_data_stays")),
        domestic: bool = typer.Option(False, "--domestic", help=t("plan.opt_domestic")),
        framework: list[str] = typer.Option(None, "--framework", help=t("plan.opt_framework")),
        deadline_days: float = typer.Option(None, "--deadline-days", help=t("plan.opt_deadline")),
        fx: float = typer.Option(None, "--fx", help=t("plan.opt_fx")),
        top: int = typer.Option(8, "--top", help=t("plan.opt_top")),
        as_json: bool = typer.Option(False, "--json", help=t("cli.opt_json")),
        markdown_file: Path = typer.Option(None, "--markdown", help=t("plan.opt_markdown")),
        force: bool = typer.Option(False, "--force", help=t("plan.opt_force")),
    ) -> None:
        flags = {
            "workload": {
                "model": model,
                "kind": workload,
                "mode": mode,
                "dataset_tokens": dataset_tokens,
                "epochs": epochs,
                "runs_per_month": runs_per_month,
                "concurrency": concurrency,
                "context": context,
                "target_tokens_per_s": target_tps,
            },
            "months": months,
            "hours_per_day": hours_per_day,
            "currency": currency,
            "region": region,
            "deadline_days": deadline_days,
            "data_may_leave": False if no_cloud else None,
            "domestic_only": True if domestic else None,
            "frameworks": framework or None,
        }
        if budget is not None:
            flags["budget"] = {
                "amount": budget,
                "per": budget_per or "month",
                "currency": (currency or "CNY").upper(),
            }
        _run(scenario, persona, example, flags, fx, top, as_json, markdown_file, force)


def _source(
    scenario: Path | None, persona: str | None, example: bool
) -> tuple[dict[str, Any], str]:
    """The scenario data and where it came from (file, persona, example or flags only)."""
    from gpuwise.advise.scenario import _read
    from gpuwise.errors import UserError

    if scenario is not None:
        return _read(scenario), str(scenario)
    if persona or example:
        name = "example" if example else persona
        if name not in (*PERSONAS, "example"):
            raise UserError("plan.bad_persona", value=persona, choices=", ".join(PERSONAS))
        path = Path(__file__).parent.parent / "advise" / "personas" / f"{name}.yaml"
        return _read(path), f"--persona {name}"
    return {}, "flags"


def _run(
    scenario: Path | None,
    persona: str | None,
    example: bool,
    flags: dict[str, Any],
    fx: float | None,
    top: int,
    as_json: bool,
    markdown_file: Path | None,
    force: bool,
) -> None:
    import datetime as dt

    from gpuwise.advise.plan import make_plan
    from gpuwise.advise.report import plan_report
    from gpuwise.advise.scenario import merge, parse_scenario
    from gpuwise.catalog import load_catalog
    from gpuwise.errors import UserError
    from gpuwise.render import out

    if top < 1:
        raise UserError("estimate.not_positive", flag="--top", value=top)
    if markdown_file is not None and markdown_file.exists() and not force:
        raise UserError("plan.file_exists", file=str(markdown_file))
    data, origin = _source(scenario, persona, example)
    data = merge(data, {k: v for k, v in flags.items() if v not in (None, {})})
    if not data.get("workload", {}).get("model") or not data["workload"].get("kind"):
        raise UserError("plan.no_workload", file=origin)
    s = parse_scenario(data, origin)
    cat = load_catalog()
    report = plan_report(cat, make_plan(cat, s, dt.date.today(), fx), top)
    if markdown_file is not None:
        from gpuwise.render.plan import markdown

        try:
            markdown_file.write_text(markdown(report), encoding="utf-8")
        except OSError as exc:
            raise UserError("plan.cannot_write", file=str(markdown_file), problem=str(exc)) from exc
    if as_json:
        out.emit_json(report)
        return
    from gpuwise.render.plan import render_plan

    render_plan(out.console(), report)
