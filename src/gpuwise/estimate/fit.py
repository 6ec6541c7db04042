"""Will it fit: headroom on a GPU, the largest batch and context, every catalog GPU that fits."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from gpuwise.catalog.schema import Gpu
from gpuwise.errors import UserError
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.memory import MemoryEstimate, estimate_memory, gpu_capacity_bytes
from gpuwise.estimate.request import MemoryRequest

GPU_COUNTS = (1, 2, 4, 8)
MAX_BATCH = 4096


def usable_bytes(gpu: Gpu, c: MemoryConstants, req: MemoryRequest) -> int:
    """What the job may use: all of it, or the share a preallocating engine is told to take."""
    engine = c.engine(req.engine) if req.engine else None
    fraction = engine.preallocate_fraction if engine and not req.training else None
    return int(gpu_capacity_bytes(gpu) * (fraction or 1.0))


def fits(req: MemoryRequest, c: MemoryConstants, gpu: Gpu) -> tuple[bool, MemoryEstimate]:
    """Whether the minimal footprint fits on the GPU (per GPU, for req.gpus GPUs)."""
    est = estimate_memory(req, c)
    return est.device_total_bytes <= usable_bytes(gpu, c, req), est


def _largest(lo: int, hi: int, ok: Callable[[int], bool]) -> int:
    """Largest n in [lo, hi] with ok(n), assuming ok is monotone (0 when even lo fails)."""
    if not ok(lo):
        return 0
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def max_batch(req: MemoryRequest, c: MemoryConstants, gpu: Gpu) -> int:
    """Largest batch (per GPU) that fits, up to 4096."""
    return _largest(1, MAX_BATCH, lambda b: fits(req.with_(batch=b), c, gpu)[0])


def max_context(req: MemoryRequest, c: MemoryConstants, gpu: Gpu) -> int:
    """Largest context (inference) or sequence length (training) that fits, up to the model's."""
    top = req.model.max_context
    if req.training:
        return _largest(16, top, lambda n: fits(req.with_(seq_len=n), c, gpu)[0])
    prompt = req.prompt_tokens

    def ok(n: int) -> bool:
        return fits(req.with_(context=n, prompt_tokens=min(prompt or n, n)), c, gpu)[0]

    return _largest(16, top, ok)


@dataclass(frozen=True)
class FitRow:
    """The fewest GPUs of one kind that hold the job, and the context they allow."""

    gpu: Gpu
    count: int
    estimate: MemoryEstimate
    max_context: int
    headroom_bytes: int


def _spread(req: MemoryRequest, count: int) -> MemoryRequest:
    """The same job on `count` GPUs; training without a strategy shards with FSDP (ZeRO-3)."""
    if count == 1:
        return req.with_(gpus=1, strategy="none")
    strategy = req.strategy
    if strategy in ("none", "ddp") and req.training:
        strategy = "fsdp"
    return req.with_(gpus=count, strategy=strategy)


def fit_catalog(
    req: MemoryRequest,
    c: MemoryConstants,
    gpus: Iterable[Gpu],
    counts: tuple[int, ...] = GPU_COUNTS,
) -> list[FitRow]:
    """For every GPU, the smallest count in `counts` (1/2/4/8, within one host) that fits."""
    rows: list[FitRow] = []
    for gpu in gpus:
        for count in counts:
            if count > gpu.max_per_host:
                break
            try:
                spread = _spread(req, count)
                ok, est = fits(spread, c, gpu)
            except UserError:
                continue  # e.g. tensor parallel degree that does not divide the heads
            if ok:
                ctx = max_context(spread, c, gpu)
                rows.append(
                    FitRow(
                        gpu, count, est, ctx, usable_bytes(gpu, c, spread) - est.device_total_bytes
                    )
                )
                break
    rows.sort(key=lambda r: (r.count, r.gpu.memory_gb, r.gpu.id))
    return rows
