"""Whether the engine runs the requested weight format on a card (compat/precision.toml).

`estimate` refuses an unsupported combination (no fp8 on a V100, no AWQ on a TPU) and names
the formats that would work; `fit` leaves such cards out. An fp8 checkpoint that the card
cannot run as W8A8 may still run weight-only (FP8-Marlin), with 16-bit compute.
"""

from __future__ import annotations

from gpuwise.catalog import Catalog
from gpuwise.catalog.precision import (
    SupportVerdict,
    format_support,
    supported_formats,
    weight_format_key,
)
from gpuwise.catalog.schema import Gpu
from gpuwise.errors import UserError
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.request import MemoryRequest
from gpuwise.estimate.resolve import resolve

RUNNABLE = ("yes", "partial")


def format_verdict(cat: Catalog, req: MemoryRequest, gpu: Gpu) -> tuple[str, str, SupportVerdict]:
    """(engine, format key, verdict) for the request's engine and weight format on `gpu`."""
    r = resolve(req, MemoryConstants.from_catalog(cat))
    rows = cat.extra("precision_support")
    key = weight_format_key(r.fmt)
    verdict = format_support(rows, r.engine.id, gpu, key)
    if verdict.support not in RUNNABLE and key == "fp8":
        weight_only = format_support(rows, r.engine.id, gpu, "fp8-w8a16")
        if weight_only.support in RUNNABLE:
            return r.engine.id, "fp8-w8a16", weight_only
    return r.engine.id, key, verdict


def runs_on(cat: Catalog, req: MemoryRequest, gpu: Gpu) -> bool:
    """Whether the engine runs the request's format on this card (unknown counts as no)."""
    return format_verdict(cat, req, gpu)[2].support in RUNNABLE


def check_runs_on(cat: Catalog, req: MemoryRequest, gpu: Gpu) -> SupportVerdict:
    """The verdict, or one clear error naming the combination and the formats that would work."""
    engine, key, verdict = format_verdict(cat, req, gpu)
    if verdict.support in RUNNABLE:
        return verdict
    works = [
        f for f in supported_formats(cat.extra("precision_support"), engine, gpu) if f != "kv-fp8"
    ]
    raise UserError(
        "estimate.format_unsupported",
        engine=engine,
        quant=req.quant or key,
        gpu=gpu.id,
        architecture=gpu.architecture or gpu.id,
        note_en=f" ({verdict.note_en})" if verdict.note_en else "",
        note_zh=f"（{verdict.note_zh}）" if verdict.note_zh else "",
        works=", ".join(works) or "—",
    )
