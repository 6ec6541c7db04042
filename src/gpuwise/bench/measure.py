"""The measurements themselves (PyTorch kernels, timed by :class:`Device`).

- Matmul: `torch.mm(a, b, out=c)` per shape after warm-up, a buffer zeroed before every timed
  iteration to flush the last-level cache (mamf-finder's method, 256 MiB on GPUs); FP8 through
  `torch._scaled_mm`, INT8 through `torch._int_mm` where the build and card have them.
- Device copy: `dst.copy_(src)` on buffers far larger than the cache (≥ 4 × L2, wave2.md §2).
- Host↔device: pinned and pageable host buffers, `copy_(non_blocking=True)` for pinned.
- All-reduce: NCCL over every GPU of one process (`torch.cuda.nccl.all_reduce`), or gloo with
  the ranks of this process on the CPU; busbw per nccl-tests.
- Decode stream: one decoder layer's weight matrices multiplied by one token's activations
  (batch 1), so the time is the time to stream the weights.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from gpuwise.bench import formulas as f
from gpuwise.bench.device import Device

GIB = 1024**3


@dataclass(frozen=True)
class Timing:
    """One measured figure: its rate (per second) at the best and median timing."""

    best: float
    median: float
    spread: float
    runs: int

    @classmethod
    def of(cls, amount: float, times_s: Sequence[float]) -> Timing:
        s = f.spread_of(times_s)
        return cls(f.rate(amount, s.best_s), f.rate(amount, s.median_s), s.spread, s.runs)


def _flusher(dev: Device, flush_bytes: int) -> Callable[[], object] | None:
    if flush_bytes <= 0:
        return None
    buf = dev.torch.empty(flush_bytes, dtype=dev.torch.uint8, device=dev.handle)
    flush: Callable[[], object] = buf.zero_
    return flush


def _timed(
    dev: Device, fn: Callable[[], object], warmup: int, iters: int, flush: Any = None
) -> list[float]:
    for _ in range(warmup):
        fn()
    dev.sync()
    return dev.time(fn, iters, flush)


def fp8_dtype_name(dev: Device) -> str:
    """The FP8 (E4M3) type this GPU's matrix cores take: MI300-series Instinct (gfx94x, CDNA3)
    implement the FNUZ variant, everything else with FP8 (NVIDIA Ada/Hopper/Blackwell, MI350's
    gfx950) the OCP one (AMD ROCm "Precision support" / PyTorch float8_e4m3fnuz notes)."""
    if getattr(dev.torch.version, "hip", None) and dev.kind == "cuda":
        props = dev.torch.cuda.get_device_properties(dev.index)
        if str(getattr(props, "gcnArchName", "")).startswith("gfx94"):
            return "float8_e4m3fnuz"
    return "float8_e4m3fn"


def _matmul_fn(dev: Device, dtype: str, m: int, n: int, k: int) -> Callable[[], object]:
    """The product for one dtype; raises NotImplementedError when this build lacks it."""
    torch, where = dev.torch, dev.handle
    if dtype == "int8":
        if not hasattr(torch, "_int_mm") or dev.kind != "cuda":
            raise NotImplementedError("int8")
        a = torch.randint(-8, 8, (m, k), dtype=torch.int8, device=where)
        b = torch.randint(-8, 8, (k, n), dtype=torch.int8, device=where)
        return lambda: torch._int_mm(a, b)
    if dtype == "fp8":
        kind = getattr(torch, fp8_dtype_name(dev), None)
        if kind is None or dev.kind != "cuda" or not hasattr(torch, "_scaled_mm"):
            raise NotImplementedError("fp8")
        a = torch.randn(m, k, device=where).to(kind)
        b = torch.randn(n, k, device=where).to(kind).t()  # column-major, as _scaled_mm wants
        one = torch.tensor(1.0, device=where)
        return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    real = {"fp32": torch.float32, "tf32": torch.float32, "bf16": torch.bfloat16}
    kind = real.get(dtype, torch.float16)
    a = torch.randn(m, k, dtype=kind, device=where)
    b = torch.randn(k, n, dtype=kind, device=where)
    c = torch.empty(m, n, dtype=kind, device=where)
    return lambda: torch.mm(a, b, out=c)


def _tf32(dev: Device, on: bool) -> None:
    if dev.kind == "cuda":
        dev.torch.backends.cuda.matmul.allow_tf32 = on


def matmul(
    dev: Device,
    dtype: str,
    shapes: Sequence[tuple[int, int, int]],
    warmup: int,
    iters: int,
    flush_bytes: int,
    tick: Callable[[], None],
) -> dict[str, Any]:
    """FLOPS of every shape for one dtype: the best shape (by median), its spread, all shapes."""
    if dtype == "tf32" and dev.kind != "cuda":
        for _ in shapes:
            tick()
        return {"dtype": dtype, "status": "not_supported", "detail": "tf32 is a CUDA mode"}
    flush = _flusher(dev, flush_bytes)
    rows: list[dict[str, Any]] = []
    failed = ""
    _tf32(dev, dtype == "tf32")
    try:
        for done, (m, n, k) in enumerate(shapes, start=1):
            try:
                fn = _matmul_fn(dev, dtype, m, n, k)
                times = _timed(dev, fn, warmup, iters, flush)
            except (NotImplementedError, RuntimeError, TypeError) as exc:
                failed = str(exc)[:120]  # no such kernel here, or out of memory at this size
                for _ in range(len(shapes) - done + 1):
                    tick()  # the bar still reaches its end
                break
            tick()
            tm = Timing.of(f.matmul_flops(m, n, k), times)
            rows.append(
                {
                    "shape": [m, n, k],
                    "median_flops": tm.median,
                    "max_flops": tm.best,
                    "spread": tm.spread,
                    "runs": tm.runs,
                }
            )
    finally:
        _tf32(dev, False)
    if not rows:
        return {"dtype": dtype, "status": "not_supported", "detail": failed}
    best = max(rows, key=lambda r: r["median_flops"])
    out = {"dtype": dtype, "status": "ok", "best": best, "shapes": rows}
    return {**out, "stopped": failed} if failed else out


def memory_copy(dev: Device, n_bytes: int, warmup: int, iters: int) -> dict[str, Any]:
    """Device-to-device copy bandwidth (bytes moved = 2 × buffer: read + write)."""
    torch = dev.torch
    src = torch.empty(n_bytes, dtype=torch.uint8, device=dev.handle).fill_(1)
    dst = torch.empty_like(src)
    times = _timed(dev, lambda: dst.copy_(src), warmup, iters)
    tm = Timing.of(f.copy_bytes(n_bytes), times)
    return {
        "status": "ok",
        "buffer_bytes": n_bytes,
        "bytes_convention": "read+write",
        "median_bps": tm.median,
        "max_bps": tm.best,
        "spread": tm.spread,
        "runs": tm.runs,
    }


def host_device(dev: Device, n_bytes: int, warmup: int, iters: int) -> dict[str, Any]:
    """Host→device and device→host bandwidth from pinned and pageable host memory."""
    if dev.kind == "cpu":
        return {"status": "not_applicable"}
    torch = dev.torch
    out: dict[str, Any] = {"status": "ok", "buffer_bytes": n_bytes}
    gpu = torch.empty(n_bytes, dtype=torch.uint8, device=dev.handle)
    for pinned in (True, False):
        host = torch.empty(n_bytes, dtype=torch.uint8, pin_memory=pinned and dev.kind == "cuda")
        label = "pinned" if pinned else "pageable"
        h2d = _timed(dev, partial(gpu.copy_, host, non_blocking=pinned), warmup, iters)
        d2h = _timed(dev, partial(host.copy_, gpu, non_blocking=pinned), warmup, iters)
        out[f"h2d_{label}_bps"] = Timing.of(n_bytes, h2d).median
        out[f"d2h_{label}_bps"] = Timing.of(n_bytes, d2h).median
    return out


def _gloo_world(torch: Any) -> bool:
    """Start a gloo group of this process alone (in-process store, no network); True if new."""
    dist = torch.distributed
    if dist.is_initialized():
        return False
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    return True


def allreduce(dev: Device, sizes: Sequence[int], warmup: int, iters: int) -> dict[str, Any]:
    """All-reduce algbw and busbw per payload: NCCL across this process's GPUs, else gloo."""
    torch = dev.torch
    rows: list[dict[str, Any]] = []
    if dev.kind == "cuda" and dev.count > 1 and not getattr(torch.version, "hip", None):
        backend, ranks = "nccl", dev.count
        for size in sizes:
            bufs = [torch.ones(size // 4, device=f"cuda:{i}") for i in range(ranks)]
            times = _timed(dev, partial(torch.cuda.nccl.all_reduce, bufs), warmup, iters)
            rows.append(_allreduce_row(size, times, ranks))
    else:
        backend, ranks = "gloo", 1
        created = _gloo_world(torch)
        try:
            for size in sizes:
                buf = torch.ones(size // 4)
                times = _timed(dev, partial(torch.distributed.all_reduce, buf), warmup, iters)
                rows.append(_allreduce_row(size, times, ranks))
        finally:
            if created:
                torch.distributed.destroy_process_group()
    return {"status": "ok", "backend": backend, "ranks": ranks, "sizes": rows}


def _allreduce_row(size: int, times: Sequence[float], ranks: int) -> dict[str, Any]:
    s = f.spread_of(times)
    return {
        "bytes": size,
        "algbw_bps": f.algbw(size, s.median_s),
        "busbw_bps": f.busbw(size, s.median_s, ranks),
        "median_s": s.median_s,
    }


def decode_stream(
    dev: Device, dims: dict[str, int], dtype: str, warmup: int, iters: int
) -> dict[str, Any]:
    """Batch-1 decode through one layer's weights: bytes of the weights ÷ time of one pass."""
    torch = dev.torch
    kind = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(dtype, torch.float32)
    h, i = dims["hidden"], dims["intermediate"]
    kv = dims["kv_heads"] * (h // dims["heads"])
    shapes = [(h, h), (kv, h), (kv, h), (h, h), (i, h), (i, h), (h, i)]
    weights = [torch.randn(o, n, dtype=kind, device=dev.handle) for o, n in shapes]
    x_h = torch.randn(1, h, dtype=kind, device=dev.handle)
    x_i = torch.randn(1, i, dtype=kind, device=dev.handle)
    lin = torch.nn.functional.linear

    def step() -> None:
        for w in weights:
            lin(x_i if w.shape[1] == i and i != h else x_h, w)

    n_bytes = sum(w.numel() * w.element_size() for w in weights)
    times = _timed(dev, step, warmup, iters)
    tm = Timing.of(n_bytes, times)
    return {
        "status": "ok",
        "dtype": dtype,
        "weight_bytes": n_bytes,
        "dims": dims,
        "median_bps": tm.median,
        "max_bps": tm.best,
        "spread": tm.spread,
        "runs": tm.runs,
    }
