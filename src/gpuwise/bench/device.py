"""PyTorch, imported lazily, and the device the bench runs on, with its timer.

Timing follows mamf-finder: on devices with events (CUDA/ROCm, XPU, Ascend NPU) each
iteration is bracketed by device events and read after one synchronisation; elsewhere (Apple
MPS, the CPU) by `time.perf_counter` around the call with a synchronisation on each side.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpuwise.errors import UserError

EVENT_KINDS = ("cuda", "xpu", "npu")


def import_torch() -> Any:
    """The torch module; without it one clear line says how to get it (exit 2)."""
    try:
        import torch
    except ImportError as exc:
        raise UserError("bench.no_torch") from exc
    return torch


@dataclass
class Device:
    """Where the kernels run: kind (cuda, xpu, npu, mps, cpu), index, name and build."""

    torch: Any
    kind: str
    index: int
    name: str
    build: str
    count: int = 1

    @property
    def handle(self) -> Any:
        """A torch.device for tensors."""
        spec = self.kind if self.kind in ("cpu", "mps") else f"{self.kind}:{self.index}"
        return self.torch.device(spec)

    @property
    def module(self) -> Any:
        """torch.cuda / torch.xpu / torch.npu / torch.mps (None on the CPU)."""
        return getattr(self.torch, self.kind, None) if self.kind != "cpu" else None

    def sync(self) -> None:
        """Wait for queued work (no-op on the CPU)."""
        if self.module is not None:
            self.module.synchronize()

    def time(
        self, fn: Callable[[], object], iters: int, before: Callable[[], object] | None = None
    ) -> list[float]:
        """Seconds of each of `iters` calls of `fn`; `before` (a cache flush) runs untimed."""
        if self.kind in EVENT_KINDS:
            return self._time_events(fn, iters, before)
        out = []
        for _ in range(iters):
            if before is not None:
                before()
            self.sync()
            t0 = time.perf_counter()
            fn()
            self.sync()
            out.append(time.perf_counter() - t0)
        return out

    def _time_events(
        self, fn: Callable[[], object], iters: int, before: Callable[[], object] | None
    ) -> list[float]:
        mod = self.module
        pairs = []
        for _ in range(iters):
            if before is not None:
                before()
            start, end = mod.Event(enable_timing=True), mod.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            pairs.append((start, end))
        self.sync()
        return [s.elapsed_time(e) / 1000.0 for s, e in pairs]


def _build(torch: Any) -> str:
    if getattr(torch.version, "hip", None):
        return f"torch {torch.__version__} ROCm {torch.version.hip}"
    if getattr(torch.version, "cuda", None):
        return f"torch {torch.__version__} CUDA {torch.version.cuda}"
    return f"torch {torch.__version__}"


def device_uuid(dev: Device) -> str | None:
    """The device's UUID as NVML writes it ("GPU-…"), when this PyTorch reports one (CUDA)."""
    if dev.kind != "cuda" or getattr(dev.torch.version, "hip", None):
        return None
    try:
        raw = getattr(dev.torch.cuda.get_device_properties(dev.index), "uuid", None)
    except (RuntimeError, AssertionError):
        return None
    return f"GPU-{raw}" if raw else None


def _mps_available(torch: Any) -> bool:
    mps = getattr(torch.backends, "mps", None)
    return bool(mps is not None and mps.is_available())


def pick_device(torch: Any, wanted: str = "auto", index: int = 0) -> Device:
    """The first accelerator PyTorch sees (CUDA/ROCm, XPU, Ascend NPU, MPS), else the CPU."""
    build = _build(torch)
    kinds = [wanted] if wanted != "auto" else ["cuda", "xpu", "npu", "mps", "cpu"]
    for kind in kinds:
        if kind in ("cpu", "mps") and index > 0 and (kind == "cpu" or _mps_available(torch)):
            # one CPU "device", one Apple GPU: `--index 99` must not quietly measure device 0
            raise UserError("bench.no_such_device", kind=kind, index=index, count=1)
        if kind == "cpu":
            import platform

            return Device(torch, "cpu", 0, platform.processor() or platform.machine(), build)
        if kind == "npu":
            try:
                importlib.import_module("torch_npu")  # registers torch.npu
            except ImportError:
                continue
        mod = getattr(torch, kind, None) if kind != "mps" else getattr(torch.backends, "mps", None)
        if mod is None or not mod.is_available():
            continue
        if kind == "mps":
            return Device(torch, "mps", 0, "Apple GPU (MPS)", build)
        count = int(mod.device_count())
        if index >= count:
            raise UserError("bench.no_such_device", kind=kind, index=index, count=count)
        return Device(torch, kind, index, str(mod.get_device_name(index)), build, count)
    raise UserError("bench.device_unavailable", kind=wanted)
