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
from typing import Any

from gpuwise.monitor.model import GpuProcess, GpuReading
from gpuwise.probe import nvml_lib as lib

MILLI = 1e-3
KIB = 1024
XID_EVENT = 0x8  # nvmlEventTypeXidCriticalError
NVLINK_TX, NVLINK_RX = 138, 139  # NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX / _RX (KiB)
MAX_XID_PER_SAMPLE = 32


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
        try:
            nv = self._nv = lib.bindings() if self._nv is None else self._nv
            lib.init(nv)
            self._initialised = True
            self._handles = self._devices(nv)
        except lib.NvmlUnavailable as exc:
            return f"{'missing' if exc.missing else 'failed'}:{exc.reason}"
        self._static = [self._identity(h) for h in self._handles]
        self._links = [self._active_links(h) for h in self._handles]
        if self._want_xid:
            self._events = self._register_xid()
        return "ok" if self._handles else "missing:no_device"

    @staticmethod
    def _devices(nv: Any) -> list[Any]:
        try:
            count = int(nv.nvmlDeviceGetCount())
            return [nv.nvmlDeviceGetHandleByIndex(i) for i in range(count)]
        except Exception as exc:
            raise lib.NvmlUnavailable(lib.reason_of(exc), str(exc)) from exc

    def close(self) -> None:
        """Free the event set and shut NVML down (errors ignored)."""
        nv = self._nv
        if nv is None or not self._initialised:
            return
        if self._events is not None:
            lib.call(lambda: nv.nvmlEventSetFree(self._events))
            self._events = None
        lib.call(nv.nvmlShutdown)
        self._initialised = False
        self._handles = []

    def _identity(self, h: Any) -> dict[str, Any]:
        nv = self._nv
        pci = lib.call(lambda: nv.nvmlDeviceGetPciInfo(h))
        limit = lib.call(lambda: nv.nvmlDeviceGetEnforcedPowerLimit(h))
        return {
            "name": lib.call(lambda: lib.text(nv.nvmlDeviceGetName(h))) or "",
            "uuid": lib.call(lambda: lib.text(nv.nvmlDeviceGetUUID(h))) or "",
            "pci_bus_id": lib.text(pci.busId) if pci is not None else "",
            "power_limit_w": limit * MILLI if limit is not None else None,
        }

    def _active_links(self, h: Any) -> list[int]:
        """NVLink links that are up (none on PCIe cards: link 0 raises NotSupported)."""
        return lib.active_nvlinks(self._nv, h) or []

    def _register_xid(self) -> Any:
        nv = self._nv
        events = lib.call(nv.nvmlEventSetCreate)
        if events is None:
            return None
        registered = [
            lib.call(partial(_register, nv, h, events)) is not None for h in self._handles
        ]
        if not any(registered):
            lib.call(lambda: nv.nvmlEventSetFree(events))
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
        mem = lib.call(lambda: nv.nvmlDeviceGetMemoryInfo(h))
        util = lib.call(lambda: nv.nvmlDeviceGetUtilizationRates(h))
        power = lib.call(lambda: nv.nvmlDeviceGetPowerUsage(h))
        energy = lib.call(lambda: nv.nvmlDeviceGetTotalEnergyConsumption(h))
        mask = lib.throttle_mask(nv, h)
        tx, rx = self._nvlink_rates(i, h, now)
        return GpuReading(
            vendor=self.vendor,
            index=i,
            **self._static[i],
            memory_used_bytes=int(mem.used) if mem is not None else None,
            memory_total_bytes=int(mem.total) if mem is not None else None,
            utilization_pct=float(util.gpu) if util is not None else None,
            memory_utilization_pct=float(util.memory) if util is not None else None,
            temperature_c=lib.call(lambda: float(nv.nvmlDeviceGetTemperature(h, 0))),
            power_w=power * MILLI if power is not None else None,
            energy_j=energy * MILLI if energy is not None else None,
            sm_clock_mhz=lib.call(lambda: float(nv.nvmlDeviceGetClockInfo(h, 1))),
            memory_clock_mhz=lib.call(lambda: float(nv.nvmlDeviceGetClockInfo(h, 2))),
            throttle_reasons=tuple(lib.throttle_names(mask)) if mask is not None else None,
            pcie_tx_bytes_per_s=self._pcie(h, 0),
            pcie_rx_bytes_per_s=self._pcie(h, 1),
            nvlink_tx_bytes_per_s=tx,
            nvlink_rx_bytes_per_s=rx,
            xid_events=xids,
            processes=self._processes(h),
        )

    def _pcie(self, h: Any, counter: int) -> float | None:
        value = lib.call(lambda: self._nv.nvmlDeviceGetPcieThroughput(h, counter))
        return float(value) * KIB if value is not None else None

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
            raw = lib.call(partial(self._nv.nvmlSystemGetProcessName, pid))
            self._names[pid] = lib.text(raw)[:200] if raw is not None else ""
        return self._names[pid]

    def _process_list(self, h: Any, kind: str) -> list[Any] | None:
        base = f"nvmlDeviceGet{kind}RunningProcesses"
        for suffix in ("_v3", "_v2", ""):
            fn = getattr(self._nv, base + suffix, None)
            found = lib.call(partial(_listed, fn, h)) if fn is not None else None
            if found is not None:
                return found
        return None

    def _nvlink_rates(self, i: int, h: Any, now: float) -> tuple[float | None, float | None]:
        """Bytes/s over NVLink since the previous reading (None at first or without links)."""
        links = self._links[i] if i < len(self._links) else []
        if not links:
            return None, None
        ids = [(f, link) for f in (NVLINK_TX, NVLINK_RX) for link in links]
        values = lib.call(lambda: self._nv.nvmlDeviceGetFieldValues(h, ids))
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
            data = lib.call(lambda: self._nv.nvmlEventSetWait(self._events, 0))
            if data is None:  # NVML answers Timeout when no event is waiting
                break
            index = keys.get(_handle_key(data.device), 0)
            out.setdefault(index, []).append(int(data.eventData))
        return out
