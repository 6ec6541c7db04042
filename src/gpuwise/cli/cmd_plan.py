"""`gpuwise plan [SCENARIO]`: buy or rent, which card, which cloud and billing, with reasons."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer

from gpuwise.cli.numbers import number
from gpuwise.i18n import t


@dataclass(frozen=True)
class PlanFlags:
    """What `gpuwise plan` was given on the command line (typed, one field a flag)."""

    scenario: Path | None
    persona: str | None
    example: bool
    model: str | None
    workload: str | None
    mode: str | None
    dataset_tokens: float | None
    epochs: float | None
    runs_per_month: float | None
    concurrency: int | None
    context: int | None
    target_tps: float | None
    months: float | None
    hours_per_day: float | None
    days_per_week: float | None
    budget: float | None
    budget_per: str | None
    currency: str | None
    region: str | None
    host_price: float | None
    allow_spot: bool | None
    no_cloud: bool
    domestic: bool
    framework: list[str] | None
    deadline_days: float | None
    max_gpus: int | None
    fx: float | None
    top: int
    as_json: bool
    markdown_file: Path | None
    force: bool

    def scenario_flags(self) -> dict[str, Any]:
        """The flags as scenario keys (merged over the file's: flags and files share one
        validation path, advise/scenario.py)."""
        from gpuwise.service.flags import plan_budget

        workload = {
            "model": self.model,
            "kind": self.workload,
            "mode": self.mode,
            "dataset_tokens": self.dataset_tokens,
            "epochs": self.epochs,
            "runs_per_month": self.runs_per_month,
            "concurrency": self.concurrency,
            "context": self.context,
            "target_tokens_per_s": self.target_tps,
        }
        return {
            "workload": workload,
            "months": self.months,
            "hours_per_day": self.hours_per_day,
            "days_per_week": self.days_per_week,
            "currency": self.currency,
            "region": self.region,
            "deadline_days": self.deadline_days,
            "data_may_leave": False if self.no_cloud else None,
            "domestic_only": True if self.domestic else None,
            "host_price": self.host_price,
            "allow_spot": self.allow_spot,
            "frameworks": self.framework or None,
            "max_gpus": self.max_gpus,
            "budget": plan_budget(self.budget, self.budget_per, self.currency),
        }


def _workload_options() -> dict[str, Any]:
    """The flags that say what runs (help in the current language, built at registration)."""
    return {
        "model": typer.Option(None, "--model", help=t("plan.opt_model")),
        "workload": typer.Option(None, "--workload", help=t("plan.opt_workload")),
        "mode": typer.Option(None, "--mode", help=t("est.opt_mode")),
        "dataset_tokens": typer.Option(
            None, "--dataset-tokens", help=t("plan.opt_tokens"), click_type=number("dataset_tokens")
        ),
        "epochs": typer.Option(
            None, "--epochs", help=t("est.opt_epochs"), click_type=number("epochs")
        ),
        "runs_per_month": typer.Option(
            None, "--runs-per-month", help=t("plan.opt_runs"), click_type=number("runs_per_month")
        ),
        "concurrency": typer.Option(
            None, "--concurrency", help=t("est.opt_concurrency"), click_type=number("concurrency")
        ),
        "context": typer.Option(
            None, "--context", help=t("est.opt_context"), click_type=number("context")
        ),
        "target_tps": typer.Option(
            None,
            "--target-tokens-per-s",
            help=t("plan.opt_target"),
            click_type=number("target_tps"),
        ),
    }


def _limit_options() -> dict[str, Any]:
    """The flags that bound the answer: time, money, where, what may be used."""
    return {
        "months": typer.Option(
            None, "--months", help=t("plan.opt_months"), click_type=number("months")
        ),
        "hours_per_day": typer.Option(
            None, "--hours-per-day", help=t("plan.opt_hours"), click_type=number("busy_hours")
        ),
        "days_per_week": typer.Option(
            None,
            "--days-per-week",
            help=t("plan.opt_days_per_week"),
            click_type=number("days_per_week"),
        ),
        "budget": typer.Option(
            None, "--budget", help=t("plan.opt_budget"), click_type=number("budget")
        ),
        "budget_per": typer.Option(None, "--budget-per", help=t("plan.opt_budget_per")),
        "currency": typer.Option(None, "--currency", help=t("plan.opt_currency")),
        "region": typer.Option(None, "--region", help=t("plan.opt_region")),
        "host_price": typer.Option(
            None, "--host-price", help=t("plan.opt_host_price"), click_type=number("money")
        ),
        "allow_spot": typer.Option(None, "--allow-spot/--no-spot", help=t("plan.opt_allow_spot")),
        "no_cloud": typer.Option(False, "--data-stays", help=t("plan.opt_data_stays")),
        "domestic": typer.Option(False, "--domestic", help=t("plan.opt_domestic")),
        "framework": typer.Option(None, "--framework", help=t("plan.opt_framework")),
        "deadline_days": typer.Option(
            None, "--deadline-days", help=t("plan.opt_deadline"), click_type=number("deadline_days")
        ),
        "max_gpus": typer.Option(
            None, "--max-gpus", help=t("plan.opt_max_gpus"), click_type=number("max_gpus")
        ),
    }


def _output_options() -> dict[str, Any]:
    """Where the scenario comes from and how the answer is written."""
    return {
        "scenario": typer.Argument(None, help=t("plan.arg_scenario")),
        "persona": typer.Option(None, "--persona", help=t("plan.opt_persona")),
        "example": typer.Option(False, "--example", help=t("plan.opt_example")),
        "fx": typer.Option(None, "--fx", help=t("plan.opt_fx"), click_type=number("fx")),
        "top": typer.Option(8, "--top", help=t("plan.opt_top"), click_type=number("top")),
        "as_json": typer.Option(False, "--json", help=t("cli.opt_json")),
        "markdown_file": typer.Option(None, "--markdown", help=t("plan.opt_markdown")),
        "force": typer.Option(False, "--force", help=t("plan.opt_force")),
    }


def register(app: typer.Typer) -> None:
    """Add `plan` to the root app (the options are declared by the helpers above)."""
    o = {**_output_options(), **_workload_options(), **_limit_options()}

    @app.command("plan", help=t("plan.help"))
    def plan(
        scenario: Path = o["scenario"],
        persona: str = o["persona"],
        example: bool = o["example"],
        model: str = o["model"],
        workload: str = o["workload"],
        mode: str = o["mode"],
        dataset_tokens: float = o["dataset_tokens"],
        epochs: float = o["epochs"],
        runs_per_month: float = o["runs_per_month"],
        concurrency: int = o["concurrency"],
        context: int = o["context"],
        target_tps: float = o["target_tps"],
        months: float = o["months"],
        hours_per_day: float = o["hours_per_day"],
        days_per_week: float = o["days_per_week"],
        budget: float = o["budget"],
        budget_per: str = o["budget_per"],
        currency: str = o["currency"],
        region: str = o["region"],
        host_price: float = o["host_price"],
        allow_spot: bool = o["allow_spot"],
        no_cloud: bool = o["no_cloud"],
        domestic: bool = o["domestic"],
        framework: list[str] = o["framework"],
        deadline_days: float = o["deadline_days"],
        max_gpus: int = o["max_gpus"],
        fx: float = o["fx"],
        top: int = o["top"],
        as_json: bool = o["as_json"],
        markdown_file: Path = o["markdown_file"],
        force: bool = o["force"],
    ) -> None:
        flags = PlanFlags(**locals())
        from gpuwise.cli.startup import gc_paused

        with gc_paused():  # a one-shot command: see gc_paused
            _run(flags)


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


def _run(f: PlanFlags) -> None:
    from gpuwise.errors import UserError
    from gpuwise.render import out
    from gpuwise.service.plan import plan_from

    if f.top < 1:
        raise UserError("estimate.not_positive", flag="--top", value=f.top)
    if f.markdown_file is not None:
        from gpuwise.userfiles import check_output

        check_output(f.markdown_file, f.force, "--markdown")
    from gpuwise.service.flags import check_plan_choices, check_plan_sources

    flags = f.scenario_flags()
    check_plan_sources(f.scenario, f.persona, f.example)
    check_plan_choices(flags)
    data, origin = _source(f.scenario, f.persona, f.example)
    report = plan_from(data, origin, flags, f.fx, f.top).report
    if f.markdown_file is not None:
        from gpuwise.render.plan import markdown
        from gpuwise.userfiles import write_text_output

        write_text_output(f.markdown_file, markdown(report), f.force, "--markdown")
    if f.as_json:
        out.emit_json(report)
        return
    from gpuwise.render.plan import render_plan

    render_plan(out.console(), report)
