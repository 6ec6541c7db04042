"""`gpuwise estimate MODEL`: VRAM per GPU with a breakdown, and whether it fits a GPU."""

from __future__ import annotations

import typer

from gpuwise.cli.estimate_options import JobOptions, build_request, with_job_options
from gpuwise.i18n import t


def register(app: typer.Typer) -> None:
    """Add `estimate` to the root app."""

    @app.command("estimate", help=t("est.help"))
    @with_job_options
    def estimate(
        model: str = typer.Argument(..., help=t("models.arg_name")),
        gpu: str = typer.Option(None, "--gpu", help=t("est.opt_gpu")),
        as_json: bool = typer.Option(False, "--json", help=t("cli.opt_json")),
        job: JobOptions | None = None,
    ) -> None:
        assert job is not None
        _run(model, gpu, as_json, job)


def _run(model: str, gpu_name: str | None, as_json: bool, job: JobOptions) -> None:
    from gpuwise.estimate.constants import MemoryConstants
    from gpuwise.estimate.report import estimate_report
    from gpuwise.render import out

    cat, req = build_request(model, job)
    consts = MemoryConstants.from_catalog(cat)
    gpu = cat.gpu(gpu_name) if gpu_name else None
    report = estimate_report(req, consts, gpu)
    if as_json:
        out.emit_json(report)
        return
    from gpuwise.render.estimate import render_estimate

    render_estimate(out.console(), report)
