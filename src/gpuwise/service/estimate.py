"""`estimate` and `fit`: a model (name, HF id, Ollama tag) and a job → memory, speed, fits."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gpuwise.errors import UserError

if TYPE_CHECKING:
    from gpuwise.estimate.report_model import EstimateReport
    from gpuwise.service.job import JobOptions


def estimate_data(
    model: str, gpu_name: str | None, job: JobOptions, opts: dict[str, Any]
) -> EstimateReport:
    """The `gpuwise estimate --json` report. `opts`: concurrency, train_tokens, epochs,
    cpu_bandwidth_gbps, gen_tokens (already checked positive)."""
    from gpuwise.documents import NoteEntry
    from gpuwise.estimate.constants import MemoryConstants
    from gpuwise.estimate.report import estimate_report
    from gpuwise.estimate.speed_constants import SpeedConstants
    from gpuwise.service.job import build_job, reading_note

    cat, req, reading = build_job(model, job)
    if req.training and opts.get("execution") in ("fused", "framework"):
        req = req.with_(fused_loss=True)  # a fused or vocabulary-parallel loss: no fp32 logits
    consts = MemoryConstants.from_catalog(cat)
    gpu = cat.gpu(gpu_name) if gpu_name else None
    if gpu is not None:
        from gpuwise.estimate.support import check_runs_on

        check_runs_on(cat, req, gpu)
    if gpu is None and (opts["concurrency"] or opts["train_tokens"]):
        raise UserError("speed.needs_gpu")
    sc = SpeedConstants.from_catalog(cat) if gpu is not None else None
    report = estimate_report(req, consts, gpu, sc, opts)
    read = reading.as_dict(req.training, job.engine, job.quant)
    notes = list(report.notes)
    note = reading_note(reading, job)
    if note is not None:  # the reading first: it decides every number below
        notes.insert(0, NoteEntry(**note))
    model_info = report.model.model_copy(update={"reading": read})
    return report.model_copy(update={"model": model_info, "notes": notes})


def check_positive(values: dict[str, float | None]) -> None:
    """`--concurrency 0` and friends: one line naming the flag (keys are the flags)."""
    for flag, value in values.items():
        if value is not None and value <= 0:
            raise UserError("estimate.not_positive", flag=flag, value=value)


@dataclass
class FitResult:
    """`data` is the `gpuwise fit --json` report; the model's display name and the note on how
    its name was read (None for a plain name) are for the table views."""

    data: dict[str, Any]
    model_name: str
    note: dict[str, Any] | None


def fit_data(
    model: str, vendor: str | None, job: JobOptions, counts: Callable[[], tuple[int, ...]]
) -> FitResult:
    """Every catalog GPU (of `vendor`) × `counts()` that holds the job, with its max context.
    `counts` is called once the job is known good (the CLI's note on `--gpus` comes after a
    bad model's error, never before it)."""
    from gpuwise.catalog.query import filter_gpus
    from gpuwise.catalog.serialize import listing_of
    from gpuwise.estimate.constants import MemoryConstants
    from gpuwise.estimate.fit import fit_catalog
    from gpuwise.estimate.resolve import resolve
    from gpuwise.estimate.support import runs_on
    from gpuwise.service.job import build_job, reading_note

    cat, req, reading = build_job(model, job)
    consts = MemoryConstants.from_catalog(cat)
    resolve(req, consts)  # bad input fails here, once, not per GPU
    chosen = filter_gpus(listing_of(cat)["gpus"], vendor, 0.0, None)
    gpus = [cat.gpu_by_id(g["id"]) for g in chosen]
    rows = fit_catalog(req, consts, [g for g in gpus if runs_on(cat, req, g)], counts())
    fits = [
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
    data = {
        "model": req.model.id,
        "mode": req.mode,
        "reading": reading.as_dict(req.training, job.engine, job.quant),
        "fits": fits,
    }
    return FitResult(data, req.model.name, reading_note(reading, job))
