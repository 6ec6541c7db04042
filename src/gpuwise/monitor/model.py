"""The typed values every sampling source returns (units in the names; None = not readable).

A source that cannot read a field leaves it ``None`` so that displays say N/A and summaries skip
it; a 0 always means a measured zero. Units are SI-like and fixed: bytes, watts, joules, degrees
Celsius, percent (0–100), MHz, bytes per second, seconds since the Unix epoch.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

Vendor = str
"""'nvidia', 'amd', 'ascend' or 'apple'."""


@dataclass(frozen=True)
class GpuProcess:
    """A process holding memory on a GPU (PIDs are as the driver reports them: host PIDs)."""

    pid: int
    gpu_memory_bytes: int | None = None
    name: str = ""


@dataclass(frozen=True)
class GpuReading:
    """One GPU at one moment.

    ``energy_j`` is the device's cumulative energy counter (NVML: since the driver was loaded),
    not energy of a run: a run's energy is the difference of two readings. ``xid_events`` are
    the Xid error codes reported since the previous reading.
    """

    vendor: Vendor
    index: int
    name: str = ""
    uuid: str = ""
    pci_bus_id: str = ""
    memory_used_bytes: int | None = None
    memory_total_bytes: int | None = None
    utilization_pct: float | None = None
    memory_utilization_pct: float | None = None
    temperature_c: float | None = None
    power_w: float | None = None
    power_limit_w: float | None = None
    energy_j: float | None = None
    sm_clock_mhz: float | None = None
    memory_clock_mhz: float | None = None
    throttle_reasons: tuple[str, ...] | None = None
    pcie_tx_bytes_per_s: float | None = None
    pcie_rx_bytes_per_s: float | None = None
    nvlink_tx_bytes_per_s: float | None = None
    nvlink_rx_bytes_per_s: float | None = None
    xid_events: tuple[int, ...] = ()
    processes: tuple[GpuProcess, ...] | None = None

    @property
    def key(self) -> str:
        """Stable name of the device within a machine: 'nvidia:0'."""
        return f"{self.vendor}:{self.index}"

    @property
    def memory_fraction(self) -> float | None:
        """Used ÷ total memory, None when either is unknown."""
        if self.memory_used_bytes is None or not self.memory_total_bytes:
            return None
        return self.memory_used_bytes / self.memory_total_bytes

    def unavailable(self) -> list[str]:
        """Names of the fields this reading could not fill (what the source cannot read)."""
        skip = {"vendor", "index", "name", "uuid", "pci_bus_id", "xid_events"}
        return [
            f.name for f in fields(self) if f.name not in skip and getattr(self, f.name) is None
        ]


@dataclass(frozen=True)
class HostReading:
    """The host at one moment (psutil); rates are over the time since the previous reading."""

    cpu_percent: float | None = None
    cpu_count: int | None = None
    memory_used_bytes: int | None = None
    memory_total_bytes: int | None = None
    disk_read_bytes_per_s: float | None = None
    disk_write_bytes_per_s: float | None = None


@dataclass(frozen=True)
class Sample:
    """Everything read at time ``t``; ``sources`` says per vendor 'ok', 'timeout' or 'failed:…'."""

    t: float
    gpus: tuple[GpuReading, ...] = ()
    host: HostReading | None = None
    sources: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able data (`watch --json` prints one of these per line)."""
        return asdict(self)


def reading_from_dict(data: dict[str, Any]) -> GpuReading:
    """Inverse of ``asdict`` for a reading (tuples restored)."""
    procs = data.get("processes")
    values: dict[str, Any] = {
        f.name: data.get(f.name) for f in fields(GpuReading) if f.name in data
    }
    values["xid_events"] = tuple(data.get("xid_events") or ())
    throttle = data.get("throttle_reasons")
    values["throttle_reasons"] = tuple(throttle) if throttle is not None else None
    values["processes"] = None if procs is None else tuple(GpuProcess(**p) for p in procs)
    return GpuReading(**values)


def sample_from_dict(data: dict[str, Any]) -> Sample:
    """Inverse of :meth:`Sample.to_dict`."""
    host = data.get("host")
    return Sample(
        t=float(data["t"]),
        gpus=tuple(reading_from_dict(g) for g in data.get("gpus", ())),
        host=HostReading(**host) if host else None,
        sources=dict(data.get("sources", {})),
    )
