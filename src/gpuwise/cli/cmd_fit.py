"""`gpuwise fit MODEL`: every catalog GPU (×1/2/4/8) that holds the job, with max context."""

from __future__ import annotations

import typer

from gpuwise.cli.estimate_options import JobOptions, build_job, reading_note, with_job_options
from gpuwise.i18n import t


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
    from gpuwise.catalog.query import filter_gpus
    from gpuwise.estimate.constants import MemoryConstants
    from gpuwise.estimate.fit import fit_catalog
    from gpuwise.estimate.resolve import resolve
    from gpuwise.render import out

    cat, req, reading = build_job(model, job)
    consts = MemoryConstants.from_catalog(cat)
    resolve(req, consts)  # bad input fails here, once, not per GPU
    from gpuwise.catalog.serialize import listing_of

    chosen = filter_gpus(listing_of(cat)["gpus"], vendor, 0.0, None)
    from gpuwise.cli.flags import fit_counts
    from gpuwise.estimate.fit import GPU_COUNTS

    counts = fit_counts(job.gpus, GPU_COUNTS)
    from gpuwise.estimate.support import runs_on

    gpus = [cat.gpu_by_id(g["id"]) for g in chosen]
    rows = fit_catalog(req, consts, [g for g in gpus if runs_on(cat, req, g)], counts)
    data = [
        {
            "gpu": r.gpu.id,
            "name": r.gpu.name,
            "count": r.count,
            "device_total_bytes": r.estimate.device_total_bytes,
            "headroom_bytes": r.headroom_bytes,
            "max_context": r.max_context,
            "strategy": r.estimate.inputs["strategy"],
        }
        for r in rows
    ]
    if as_json:
        out.emit_json(
            {
                "model": req.model.id,
                "mode": req.mode,
                "reading": reading.as_dict(req.training, job.engine, job.quant),
                "fits": data,
            }
        )
        return
    from gpuwise.render.fit import fit_table

    out.console().print(fit_table(req.model.name, req.mode, data))
    note = reading_note(reading, job)
    if note is not None:
        out.console().print("• " + t(note["key"], **note["params"]))
