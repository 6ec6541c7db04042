"""`gpuwise estimate MODEL`: VRAM per GPU with a breakdown, and whether it fits a GPU."""

from __future__ import annotations

from typing import Any

import click
import typer

from gpuwise.cli.estimate_options import with_job_options
from gpuwise.cli.numbers import number
from gpuwise.i18n import t
from gpuwise.service.job import JobOptions


def register(app: typer.Typer) -> None:
    """Add `estimate` to the root app."""

    @app.command("estimate", help=t("est.help"))
    @with_job_options
    def estimate(
        model: str = typer.Argument(..., help=t("models.arg_name")),
        gpu: str = typer.Option(None, "--gpu", help=t("est.opt_gpu")),
        concurrency: int = typer.Option(
            None, "--concurrency", help=t("est.opt_concurrency"), click_type=number("concurrency")
        ),
        train_tokens: float = typer.Option(
            None,
            "--train-tokens",
            help=t("est.opt_train_tokens"),
            click_type=number("dataset_tokens"),
        ),
        epochs: float = typer.Option(
            1.0, "--epochs", help=t("est.opt_epochs"), click_type=number("epochs")
        ),
        cpu_bandwidth: float = typer.Option(
            None, "--cpu-bandwidth", help=t("est.opt_cpu_bw"), click_type=number("cpu_bandwidth")
        ),
        execution: str = typer.Option(
            None,
            "--execution",
            help=t("est.opt_execution"),
            click_type=click.Choice(["eager", "compiled", "fused", "framework"]),
        ),
        as_json: bool = typer.Option(False, "--json", help=t("cli.opt_json")),
        job: JobOptions | None = None,
    ) -> None:
        assert job is not None
        from gpuwise.service.estimate import check_positive

        check_positive(
            {
                "--concurrency": concurrency,
                "--train-tokens": train_tokens,
                "--epochs": epochs,
                "--cpu-bandwidth": cpu_bandwidth,
            }
        )
        opts = {
            "concurrency": concurrency,
            "train_tokens": train_tokens,
            "epochs": epochs,
            "cpu_bandwidth_gbps": cpu_bandwidth,
            "gen_tokens": job.gen_tokens,
            "execution": execution,
        }
        _run(model, gpu, as_json, job, opts)


def _run(
    model: str, gpu_name: str | None, as_json: bool, job: JobOptions, opts: dict[str, Any]
) -> None:
    from gpuwise.render import out
    from gpuwise.service.estimate import estimate_data

    report = estimate_data(model, gpu_name, job, opts)
    if as_json:
        out.emit_json(report)
        return
    from gpuwise.render.estimate import render_estimate

    render_estimate(out.console(), report)
