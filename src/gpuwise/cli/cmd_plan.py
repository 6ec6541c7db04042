"""`gpuwise plan [SCENARIO]`: buy or rent, which card, which cloud and billing, with reasons."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from gpuwise.cli.numbers import number
from gpuwise.i18n import t


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
        dataset_tokens: float = typer.Option(
            None, "--dataset-tokens", help=t("plan.opt_tokens"), click_type=number("dataset_tokens")
        ),
        epochs: float = typer.Option(
            None, "--epochs", help=t("est.opt_epochs"), click_type=number("epochs")
        ),
        runs_per_month: float = typer.Option(
            None, "--runs-per-month", help=t("plan.opt_runs"), click_type=number("runs_per_month")
        ),
        concurrency: int = typer.Option(
            None, "--concurrency", help=t("est.opt_concurrency"), click_type=number("concurrency")
        ),
        context: int = typer.Option(
            None, "--context", help=t("est.opt_context"), click_type=number("context")
        ),
        target_tps: float = typer.Option(
            None,
            "--target-tokens-per-s",
            help=t("plan.opt_target"),
            click_type=number("target_tps"),
        ),
        months: float = typer.Option(
            None, "--months", help=t("plan.opt_months"), click_type=number("months")
        ),
        hours_per_day: float = typer.Option(
            None, "--hours-per-day", help=t("plan.opt_hours"), click_type=number("busy_hours")
        ),
        budget: float = typer.Option(
            None, "--budget", help=t("plan.opt_budget"), click_type=number("budget")
        ),
        budget_per: str = typer.Option(None, "--budget-per", help=t("plan.opt_budget_per")),
        currency: str = typer.Option(None, "--currency", help=t("plan.opt_currency")),
        region: str = typer.Option(None, "--region", help=t("plan.opt_region")),
        host_price: float = typer.Option(
            None, "--host-price", help=t("plan.opt_host_price"), click_type=number("money")
        ),
        allow_spot: bool = typer.Option(
            None, "--allow-spot/--no-spot", help=t("plan.opt_allow_spot")
        ),
        no_cloud: bool = typer.Option(False, "--data-stays", help=t("plan.opt_data_stays")),
        domestic: bool = typer.Option(False, "--domestic", help=t("plan.opt_domestic")),
        framework: list[str] = typer.Option(None, "--framework", help=t("plan.opt_framework")),
        deadline_days: float = typer.Option(
            None, "--deadline-days", help=t("plan.opt_deadline"), click_type=number("deadline_days")
        ),
        max_gpus: int = typer.Option(
            None, "--max-gpus", help=t("plan.opt_max_gpus"), click_type=number("max_gpus")
        ),
        fx: float = typer.Option(None, "--fx", help=t("plan.opt_fx"), click_type=number("fx")),
        top: int = typer.Option(8, "--top", help=t("plan.opt_top"), click_type=number("top")),
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
            "host_price": host_price,
            "allow_spot": allow_spot,
            "frameworks": framework or None,
            "max_gpus": max_gpus,
        }
        from gpuwise.service.flags import plan_budget

        flags["budget"] = plan_budget(budget, budget_per, currency)
        from gpuwise.cli.startup import gc_paused

        with gc_paused():  # a one-shot command: see gc_paused
            _run(scenario, persona, example, flags, fx, top, as_json, markdown_file, force)


def _source(
    scenario: Path | None, persona: str | None, example: bool
) -> tuple[dict[str, Any], str]:
    """The scenario data and where it came from (file, persona, example or flags only)."""
    from gpuwise.advise.scenario import _read
    from gpuwise.service.plan import persona_data

    if scenario is not None:
        return _read(scenario), str(scenario)
    if persona or example:
        name = "example" if example else str(persona)
        return persona_data(name), f"--persona {name}"
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
    from gpuwise.errors import UserError
    from gpuwise.render import out
    from gpuwise.service.plan import plan_from

    if top < 1:
        raise UserError("estimate.not_positive", flag="--top", value=top)
    if markdown_file is not None:
        from gpuwise.userfiles import check_output

        check_output(markdown_file, force, "--markdown")
    from gpuwise.service.flags import check_plan_choices, check_plan_sources

    check_plan_sources(scenario, persona, example)
    check_plan_choices(flags)
    data, origin = _source(scenario, persona, example)
    report = plan_from(data, origin, flags, fx, top).report
    if markdown_file is not None:
        from gpuwise.render.plan import markdown
        from gpuwise.userfiles import write_text_output

        write_text_output(markdown_file, markdown(report), force, "--markdown")
    if as_json:
        out.emit_json(report)
        return
    from gpuwise.render.plan import render_plan

    render_plan(out.console(), report)
