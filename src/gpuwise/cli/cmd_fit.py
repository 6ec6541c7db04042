"""`gpuwise fit MODEL`: every catalog GPU (×1/2/4/8) that holds the job, with max context."""

from __future__ import annotations

import typer

from gpuwise.cli.estimate_options import with_job_options
from gpuwise.i18n import t
from gpuwise.service.job import JobOptions


def register(app: typer.Typer) -> None:
    """Add `fit` to the root app."""

    @app.command("fit", help=t("fit.help"))
    @with_job_options
    def fit(
        model: str = typer.Argument(..., help=t("models.arg_name")),
        vendor: str = typer.Option(None, "--vendor", help=t("gpus.opt_vendor")),
        as_json: bool = typer.Option(False, "--json", help=t("cli.opt_json")),
        job: JobOptions | None = None,
    ) -> None:
        assert job is not None
        _run(model, vendor, as_json, job)


def _run(model: str, vendor: str | None, as_json: bool, job: JobOptions) -> None:
    from gpuwise.estimate.fit import GPU_COUNTS
    from gpuwise.render import out
    from gpuwise.service.estimate import fit_data
    from gpuwise.service.flags import fit_counts

    result = fit_data(model, vendor, job, lambda: fit_counts(job.gpus, GPU_COUNTS))
    if as_json:
        out.emit_json(result.data)
        return
    from gpuwise.render.fit import fit_table

    out.console().print(fit_table(result.model_name, result.data["mode"], result.data["fits"]))
    if result.note is not None:
        out.console().print("• " + t(result.note["key"], **result.note["params"]))
