"""`gpuwise estimate MODEL`: VRAM per GPU with a breakdown, and whether it fits a GPU."""

from __future__ import annotations

from typing import Any

import typer

from gpuwise.cli.estimate_options import JobOptions, build_job, reading_note, with_job_options
from gpuwise.cli.numbers import number
from gpuwise.i18n import t


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
        as_json: bool = typer.Option(False, "--json", help=t("cli.opt_json")),
        job: JobOptions | None = None,
    ) -> None:
        assert job is not None
        for flag, value in (
            ("--concurrency", concurrency),
            ("--train-tokens", train_tokens),
            ("--epochs", epochs),
            ("--cpu-bandwidth", cpu_bandwidth),
        ):
            if value is not None and value <= 0:
                from gpuwise.errors import UserError

                raise UserError("estimate.not_positive", flag=flag, value=value)
        opts = {
            "concurrency": concurrency,
            "train_tokens": train_tokens,
            "epochs": epochs,
            "cpu_bandwidth_gbps": cpu_bandwidth,
            "gen_tokens": job.gen_tokens,
        }
        _run(model, gpu, as_json, job, opts)


def _run(
    model: str, gpu_name: str | None, as_json: bool, job: JobOptions, opts: dict[str, Any]
) -> None:
    from gpuwise.errors import UserError
    from gpuwise.estimate.constants import MemoryConstants
    from gpuwise.estimate.report import estimate_report
    from gpuwise.estimate.speed_constants import SpeedConstants
    from gpuwise.render import out

    cat, req, reading = build_job(model, job)
    consts = MemoryConstants.from_catalog(cat)
    gpu = cat.gpu(gpu_name) if gpu_name else None
    if gpu is not None:
        from gpuwise.estimate.support import check_runs_on

        check_runs_on(cat, req, gpu)
    if gpu is None and (opts["concurrency"] or opts["train_tokens"]):
        raise UserError("speed.needs_gpu")
    sc = SpeedConstants.from_catalog(cat) if gpu is not None else None
    report = estimate_report(req, consts, gpu, sc, opts)
    report["model"]["reading"] = reading.as_dict(req.training, job.engine, job.quant)
    note = reading_note(reading, job)
    if note is not None:  # the reading first: it decides every number below
        report["notes"].insert(0, note)
    if as_json:
        out.emit_json(report)
        return
    from gpuwise.render.estimate import render_estimate

    render_estimate(out.console(), report)
