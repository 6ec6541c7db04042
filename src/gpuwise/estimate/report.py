"""One estimate as its report (estimate/report_model.EstimateReport): the JSON contract of
`gpuwise estimate`, and what the tables and the web page show."""

from __future__ import annotations

from typing import Any

from gpuwise.catalog.schema import Gpu
from gpuwise.documents import NoteEntry
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.fit import max_batch, max_context, usable_bytes
from gpuwise.estimate.memory import estimate_memory, gpu_capacity_bytes
from gpuwise.estimate.pooling import pooling_speed, pools
from gpuwise.estimate.report_model import EstimateReport, GpuFit, MemoryReport, ModelInfo
from gpuwise.estimate.request import MemoryRequest
from gpuwise.estimate.resolve import resolve
from gpuwise.estimate.speed import SpeedInputs, inference_speed
from gpuwise.estimate.speed_constants import SpeedConstants
from gpuwise.estimate.train_speed import training_speed


def estimate_report(
    req: MemoryRequest,
    c: MemoryConstants,
    gpu: Gpu | None,
    sc: SpeedConstants | None = None,
    speed_opts: dict[str, Any] | None = None,
) -> EstimateReport:
    """Memory per GPU (breakdown, totals, band); with a GPU: fits, headroom, max batch/context."""
    minimal = estimate_memory(req, c)
    shown = estimate_memory(req, c, gpu) if gpu is not None else minimal
    band = vram_band(sc, req, shown.device_total_bytes) if gpu is not None and sc else {}
    memory = MemoryReport(
        breakdown=shown.breakdown,
        allocated_peak_bytes=shown.allocated_peak_bytes,
        device_total_bytes=shown.device_total_bytes,
        low_bytes=shown.low_bytes,
        high_bytes=shown.high_bytes,
        minimum_device_total_bytes=minimal.device_total_bytes,
        **band,
    )
    m = req.model
    report = EstimateReport(
        model=ModelInfo(
            id=m.id, name=m.name, params_b=m.params_b, active_params_b=m.active_params_b
        ),
        inputs=shown.inputs,
        memory=memory,
        notes=[NoteEntry(key=k, params=p) for k, p in shown.notes],
    )
    if gpu is None:
        return report
    usable = usable_bytes(gpu, c, req)
    fit = {
        "gpu": GpuFit(
            id=gpu.id, name=gpu.name, capacity_bytes=gpu_capacity_bytes(gpu), usable_bytes=usable
        ),
        "fits": minimal.device_total_bytes <= usable,
        "headroom_bytes": usable - minimal.device_total_bytes,
        "max_batch": max_batch(req, c, gpu),
        "max_context": max_context(req, c, gpu),
    }
    if sc is not None:
        fit["speed"] = speed_report(req, c, sc, gpu, speed_opts or {}, memory)
    return report.model_copy(update=fit)


def vram_band(sc: SpeedConstants, req: MemoryRequest, total: int) -> dict[str, int]:
    """p10 and p90 of the device total: where 8 in 10 published measurements fell relative to
    the estimate (the "vram" error band; empty without band data)."""
    band = sc.band("vram", req.engine or "transformers", "any")
    if band is None:
        return {}
    return {"band_p10_bytes": int(total * band.p10), "band_p90_bytes": int(total * band.p90)}


def offload_fraction(minimal_total: int, usable: int, weights: int, engine_offloads: bool) -> float:
    """Share of the weights llama.cpp / Ollama would keep on the CPU to make the job fit."""
    if not engine_offloads or minimal_total <= usable or weights <= 0:
        return 0.0
    return min(1.0, (minimal_total - usable) / weights)


def speed_report(
    req: MemoryRequest,
    c: MemoryConstants,
    sc: SpeedConstants,
    gpu: Gpu,
    opts: dict[str, Any],
    memory: MemoryReport,
) -> dict[str, Any]:
    """The `speed` object: prefill/decode/TTFT/bound, serving and training figures."""
    r = resolve(req, c)
    offload = offload_fraction(
        memory.minimum_device_total_bytes,
        usable_bytes(gpu, c, req),
        memory.breakdown["weights"],
        r.engine.embeddings_on_cpu,
    )
    inputs = SpeedInputs(
        gpu=gpu,
        gen_tokens=int(opts.get("gen_tokens") or 128),
        concurrency=opts.get("concurrency"),
        train_tokens=opts.get("train_tokens"),
        epochs=float(opts.get("epochs") or 1.0),
        cpu_bandwidth_gbps=opts.get("cpu_bandwidth_gbps"),
        offload_fraction=offload,
        max_batch=max_batch(req, c, gpu) if opts.get("concurrency") else None,
        enforce_eager=bool(opts.get("enforce_eager", False)),
        execution=opts.get("execution"),
    )
    if req.training:
        est = training_speed(r, sc, inputs)
    elif pools(req.model):  # an embedder or reranker: one batched pass, no decode
        est = pooling_speed(r, sc, inputs)
    else:
        est = inference_speed(r, sc, inputs)
    out = est.as_dict()
    if offload:
        out["offload_fraction"] = round(offload, 3)
    return out
