"""NVIDIA GPUs through NVML (nvidia-ml-py): one reading per GPU per sample.

Calls and units (nvidia-ml-py 13.615.71 source and the NVML API reference; research notes
wave2.md §1 and env-knowledge.md §3.8): memory in bytes; power and power limit in mW; the total
energy counter in mJ since the driver was loaded (Volta and later); clocks in MHz; PCIe
throughput in KiB/s (as nvitop reads it); NVLink data counters in KiB per link (fields 138/139,
cumulative, so rates come from two readings). Any NVML error on one call (NotSupported on
GeForce, NoPermission, FunctionNotFound on an old driver) leaves that one field None.

Xid errors are read from an NVML event set registered for critical Xid events (no DCGM needed);
the wait uses a 0 ms timeout, so a sample never blocks on it.
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from gpuwise.monitor.model import GpuProcess, GpuReading
from gpuwise.probe.nvml import reason_of, throttle_names

T = TypeVar("T")
MILLI = 1e-3
KIB = 1024
XID_EVENT = 0x8  # nvmlEventTypeXidCriticalError
NVLINK_TX, NVLINK_RX = 138, 139  # NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX / _RX (KiB)
MAX_XID_PER_SAMPLE = 32


def _try(fn: Callable[[], T]) -> T | None:
    """One NVML call; any NVML error (or a missing function) gives None."""
    try:
        return fn()
    except Exception:
        return None


def _text(value: Any) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


def _register(nv: Any, handle: Any, events: Any) -> bool:
    """Ask for this device's critical Xid events (NotSupported on some boards)."""
    nv.nvmlDeviceRegisterEvents(handle, XID_EVENT, events)
    return True


def _listed(fn: Callable[[Any], Any], handle: Any) -> list[Any]:
    return list(fn(handle))


def _handle_key(handle: Any) -> Any:
    """Something equal for two references to the same device (ctypes pointers compare by id)."""
    try:
        return ctypes.cast(handle, ctypes.c_void_p).value
    except (TypeError, ctypes.ArgumentError):
        return id(handle)


class NvidiaSource:
    """Sample every NVIDIA GPU; ``nv`` is the pynvml module (tests pass a patched one)."""

    vendor = "nvidia"

    def __init__(self, nv: Any | None = None, xid: bool = True) -> None:
        self._nv: Any = nv
        self._want_xid = xid
        self._handles: list[Any] = []
        self._static: list[dict[str, Any]] = []
        self._links: list[list[int]] = []
        self._nvlink_prev: dict[int, tuple[float, int, int]] = {}
        self._events: Any = None
        self._initialised = False
        self._names: dict[int, str] = {}

    def open(self) -> str:
        """Initialise NVML and learn the devices: 'ok', or 'missing:…'/'failed:…' with a reason."""
        if self._nv is None:
            try:
                import pynvml
            except ImportError:
                return "missing:bindings_missing"
            self._nv = pynvml
        nv = self._nv
        try:
            nv.nvmlInit()
            self._initialised = True
            count = int(nv.nvmlDeviceGetCount())
            self._handles = [nv.nvmlDeviceGetHandleByIndex(i) for i in range(count)]
        except Exception as exc:
            reason = reason_of(exc)
            return f"missing:{reason}" if reason in ("library_not_found",) else f"failed:{reason}"
        self._static = [self._identity(h) for h in self._handles]
        self._links = [self._active_links(h) for h in self._handles]
        if self._want_xid:
            self._events = self._register_xid()
        return "ok" if self._handles else "missing:no_device"

    def close(self) -> None:
        """Free the event set and shut NVML down (errors ignored)."""
        nv = self._nv
        if nv is None or not self._initialised:
            return
        if self._events is not None:
            _try(lambda: nv.nvmlEventSetFree(self._events))
            self._events = None
        _try(nv.nvmlShutdown)
        self._initialised = False
        self._handles = []

    def _identity(self, h: Any) -> dict[str, Any]:
        nv = self._nv
        pci = _try(lambda: nv.nvmlDeviceGetPciInfo(h))
        limit = _try(lambda: nv.nvmlDeviceGetEnforcedPowerLimit(h))
        return {
            "name": _try(lambda: _text(nv.nvmlDeviceGetName(h))) or "",
            "uuid": _try(lambda: _text(nv.nvmlDeviceGetUUID(h))) or "",
            "pci_bus_id": _text(pci.busId) if pci is not None else "",
            "power_limit_w": limit * MILLI if limit is not None else None,
        }

    def _active_links(self, h: Any) -> list[int]:
        """NVLink links that are up (none on PCIe cards: link 0 raises NotSupported)."""
        nv = self._nv
        if not _try(lambda: nv.nvmlDeviceGetNvLinkState(h, 0)):
            return []
        count = int(getattr(nv, "NVML_NVLINK_MAX_LINKS", 18))
        return [i for i in range(count) if _try(partial(nv.nvmlDeviceGetNvLinkState, h, i))]

    def _register_xid(self) -> Any:
        nv = self._nv
        events = _try(nv.nvmlEventSetCreate)
        if events is None:
            return None
        registered = [_try(partial(_register, nv, h, events)) is not None for h in self._handles]
        if not any(registered):
            _try(lambda: nv.nvmlEventSetFree(events))
            return None
        return events

    def read(self) -> list[GpuReading]:
        """One reading per GPU (device order of NVML)."""
        xids = self._drain_xid()
        now = time.monotonic()
        return [
            self._reading(i, h, now, tuple(xids.get(i, ()))) for i, h in enumerate(self._handles)
        ]

    def _reading(self, i: int, h: Any, now: float, xids: tuple[int, ...]) -> GpuReading:
        nv = self._nv
        mem = _try(lambda: nv.nvmlDeviceGetMemoryInfo(h))
        util = _try(lambda: nv.nvmlDeviceGetUtilizationRates(h))
        power = _try(lambda: nv.nvmlDeviceGetPowerUsage(h))
        energy = _try(lambda: nv.nvmlDeviceGetTotalEnergyConsumption(h))
        mask = self._throttle_mask(h)
        tx, rx = self._nvlink_rates(i, h, now)
        return GpuReading(
            vendor=self.vendor,
            index=i,
            **self._static[i],
            memory_used_bytes=int(mem.used) if mem is not None else None,
            memory_total_bytes=int(mem.total) if mem is not None else None,
            utilization_pct=float(util.gpu) if util is not None else None,
            memory_utilization_pct=float(util.memory) if util is not None else None,
            temperature_c=_try(lambda: float(nv.nvmlDeviceGetTemperature(h, 0))),
            power_w=power * MILLI if power is not None else None,
            energy_j=energy * MILLI if energy is not None else None,
            sm_clock_mhz=_try(lambda: float(nv.nvmlDeviceGetClockInfo(h, 1))),
            memory_clock_mhz=_try(lambda: float(nv.nvmlDeviceGetClockInfo(h, 2))),
            throttle_reasons=tuple(throttle_names(mask)) if mask is not None else None,
            pcie_tx_bytes_per_s=self._pcie(h, 0),
            pcie_rx_bytes_per_s=self._pcie(h, 1),
            nvlink_tx_bytes_per_s=tx,
            nvlink_rx_bytes_per_s=rx,
            xid_events=xids,
            processes=self._processes(h),
        )

    def _pcie(self, h: Any, counter: int) -> float | None:
        value = _try(lambda: self._nv.nvmlDeviceGetPcieThroughput(h, counter))
        return float(value) * KIB if value is not None else None

    def _throttle_mask(self, h: Any) -> int | None:
        """Clocks-event reasons; drivers before the rename only have the 'Throttle' name."""
        for name in (
            "nvmlDeviceGetCurrentClocksEventReasons",
            "nvmlDeviceGetCurrentClocksThrottleReasons",
        ):
            fn = getattr(self._nv, name, None)
            mask = _try(partial(fn, h)) if fn is not None else None
            if mask is not None:
                return int(mask)
        return None

    def _processes(self, h: Any) -> tuple[GpuProcess, ...] | None:
        """Compute and graphics processes with their memory (None when the driver refuses)."""
        compute = self._process_list(h, "Compute")
        graphics = self._process_list(h, "Graphics")
        if compute is None and graphics is None:
            return None
        merged: dict[int, int | None] = {}
        for p in [*(compute or []), *(graphics or [])]:
            used = getattr(p, "usedGpuMemory", None)
            old = merged.get(p.pid)
            merged[p.pid] = used if old is None else max(old, used or 0)
        return tuple(
            GpuProcess(pid=int(pid), gpu_memory_bytes=m, name=self._name(int(pid)))
            for pid, m in merged.items()
        )

    def _name(self, pid: int) -> str:
        """The process's name as the driver knows it (host PIDs), looked up once per PID."""
        if pid not in self._names:
            if len(self._names) > 4096:  # PIDs come and go; keep the cache small
                self._names.clear()
            raw = _try(partial(self._nv.nvmlSystemGetProcessName, pid))
            self._names[pid] = _text(raw)[:200] if raw is not None else ""
        return self._names[pid]

    def _process_list(self, h: Any, kind: str) -> list[Any] | None:
        base = f"nvmlDeviceGet{kind}RunningProcesses"
        for suffix in ("_v3", "_v2", ""):
            fn = getattr(self._nv, base + suffix, None)
            found = _try(partial(_listed, fn, h)) if fn is not None else None
            if found is not None:
                return found
        return None

    def _nvlink_rates(self, i: int, h: Any, now: float) -> tuple[float | None, float | None]:
        """Bytes/s over NVLink since the previous reading (None at first or without links)."""
        links = self._links[i] if i < len(self._links) else []
        if not links:
            return None, None
        ids = [(f, link) for f in (NVLINK_TX, NVLINK_RX) for link in links]
        values = _try(lambda: self._nv.nvmlDeviceGetFieldValues(h, ids))
        if values is None:
            return None, None
        ok = [(v.fieldId, int(v.value.ullVal)) for v in values if v.nvmlReturn == 0]
        tx = sum(n for f, n in ok if f == NVLINK_TX)
        rx = sum(n for f, n in ok if f == NVLINK_RX)
        prev = self._nvlink_prev.get(i)
        self._nvlink_prev[i] = (now, tx, rx)
        if prev is None or now <= prev[0] or tx < prev[1] or rx < prev[2]:
            return None, None
        dt = now - prev[0]
        return (tx - prev[1]) * KIB / dt, (rx - prev[2]) * KIB / dt

    def _drain_xid(self) -> dict[int, list[int]]:
        """Xid codes waiting in the event set, by device index (never blocks)."""
        out: dict[int, list[int]] = {}
        if self._events is None:
            return out
        keys = {_handle_key(h): i for i, h in enumerate(self._handles)}
        for _ in range(MAX_XID_PER_SAMPLE):
            data = _try(lambda: self._nv.nvmlEventSetWait(self._events, 0))
            if data is None:  # NVML answers Timeout when no event is waiting
                break
            index = keys.get(_handle_key(data.device), 0)
            out.setdefault(index, []).append(int(data.eventData))
        return out
