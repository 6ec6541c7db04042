"""One estimate as a plain dict: the JSON contract of `gpuwise estimate` (and what tables show)."""

from __future__ import annotations

from typing import Any

from gpuwise.catalog.schema import Gpu
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.fit import max_batch, max_context, usable_bytes
from gpuwise.estimate.memory import estimate_memory, gpu_capacity_bytes
from gpuwise.estimate.request import MemoryRequest


def estimate_report(req: MemoryRequest, c: MemoryConstants, gpu: Gpu | None) -> dict[str, Any]:
    """Memory per GPU (breakdown, totals, band); with a GPU: fits, headroom, max batch/context."""
    minimal = estimate_memory(req, c)
    shown = estimate_memory(req, c, gpu) if gpu is not None else minimal
    memory = {
        "breakdown": shown.breakdown,
        "allocated_peak_bytes": shown.allocated_peak_bytes,
        "device_total_bytes": shown.device_total_bytes,
        "low_bytes": shown.low_bytes,
        "high_bytes": shown.high_bytes,
        "minimum_device_total_bytes": minimal.device_total_bytes,
        "per_gpu": True,
    }
    report: dict[str, Any] = {
        "model": {
            "id": req.model.id,
            "name": req.model.name,
            "params_b": req.model.params_b,
            "active_params_b": req.model.active_params_b,
        },
        "inputs": shown.inputs,
        "memory": memory,
        "notes": [{"key": k, "params": p} for k, p in shown.notes],
    }
    if gpu is not None:
        usable = usable_bytes(gpu, c, req)
        report.update(
            gpu={
                "id": gpu.id,
                "name": gpu.name,
                "capacity_bytes": gpu_capacity_bytes(gpu),
                "usable_bytes": usable,
            },
            fits=minimal.device_total_bytes <= usable,
            headroom_bytes=usable - minimal.device_total_bytes,
            max_batch=max_batch(req, c, gpu),
            max_context=max_context(req, c, gpu),
        )
    return report
