"""The `gpuwise estimate --json` document as types (docs/schemas/estimate.json).

What the memory model found is typed part by part; the request's inputs and the speed figures
stay mappings here: their shapes belong to estimate/request.py and estimate/speed.py, which
state them (`as_dict`).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from gpuwise.documents import Frozen, NoteEntry, Sparse


class ModelInfo(Sparse):
    """The model estimated, and how its name was read (`reading`, from the service)."""

    OMIT_WHEN_NONE = frozenset({"reading"})

    id: str
    name: str
    params_b: float
    active_params_b: float | None
    reading: dict[str, Any] | None = None


class MemoryReport(Sparse):
    """Memory per GPU: the parts, the totals, the estimate's own band and, with a GPU and
    band data, where 8 in 10 published measurements fell (p10 … p90)."""

    OMIT_WHEN_NONE = frozenset({"band_p10_bytes", "band_p90_bytes"})

    breakdown: dict[str, int]
    allocated_peak_bytes: int
    device_total_bytes: int
    low_bytes: int
    high_bytes: int
    minimum_device_total_bytes: int
    per_gpu: bool = True
    band_p10_bytes: int | None = None
    band_p90_bytes: int | None = None


class GpuFit(Frozen):
    """The card the job was fitted to."""

    id: str
    name: str
    capacity_bytes: int
    usable_bytes: int


class EstimateReport(Sparse):
    """`gpuwise estimate --json`; the fit and speed parts appear when a GPU is named."""

    OMIT_WHEN_NONE = frozenset(
        {"gpu", "fits", "headroom_bytes", "max_batch", "max_context", "speed"}
    )

    model: ModelInfo
    inputs: dict[str, Any]
    memory: MemoryReport
    notes: list[NoteEntry]
    gpu: GpuFit | None = None
    fits: bool | None = None
    headroom_bytes: int | None = Field(None, description="usable minus needed (negative: short)")
    max_batch: int | None = None
    max_context: int | None = None
    speed: dict[str, Any] | None = Field(None, description="estimate/speed.py's figures")
