"""Prometheus `/metrics` for the existing Prometheus/Grafana stack (prometheus_client).

A background thread samples every interval; a scrape reads the latest sample, so scrapes are
fast and never touch the GPU. Names follow the Prometheus conventions
(https://prometheus.io/docs/practices/naming/, read 2026-12-02): a `gpuwise_` prefix, base units
in the name (bytes, watts, celsius, hertz, joules, seconds), 0–1 ratios instead of percent, and
`_total` on counters. A value a source cannot read is left out of the scrape (never 0).

`--dcgm-names` emits the names and labels of NVIDIA's dcgm-exporter instead
(etc/default-counters.csv and internal/pkg/rendermetrics @d5e5f51, research notes wave2.md §1):
DCGM units (MiB, %, MHz, mJ), labels gpu, UUID, pci_bus_id, device, modelName, Hostname, so
dashboards built for dcgm-exporter work unchanged. DCGM's energy counter keeps its name without
`_total` (prometheus_client would add it to a counter), so it is exposed untyped.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Iterator
from importlib import resources
from typing import Any

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector, CollectorRegistry

from gpuwise.monitor.model import GpuReading, Sample
from gpuwise.monitor.sampler import Sampler
from gpuwise.probe.nvml_lib import THROTTLE_BITS

MIB = 1024 * 1024
GPU_LABELS = ["vendor", "gpu", "name", "uuid"]
DCGM_LABELS = ["gpu", "UUID", "pci_bus_id", "device", "modelName", "Hostname"]

# (metric suffix, help, reading field, scale to the metric's unit)
GAUGES: tuple[tuple[str, str, str, float], ...] = (
    ("memory_used_bytes", "GPU memory in use.", "memory_used_bytes", 1.0),
    ("memory_total_bytes", "GPU memory in total.", "memory_total_bytes", 1.0),
    ("utilization_ratio", "Share of time a kernel was running (0-1).", "utilization_pct", 0.01),
    (
        "memory_utilization_ratio",
        "Share of time memory was read or written (0-1).",
        "memory_utilization_pct",
        0.01,
    ),
    ("temperature_celsius", "GPU temperature.", "temperature_c", 1.0),
    ("power_watts", "Power draw.", "power_w", 1.0),
    ("power_limit_watts", "Enforced power limit.", "power_limit_w", 1.0),
    ("sm_clock_hertz", "SM clock.", "sm_clock_mhz", 1e6),
    ("memory_clock_hertz", "Memory clock.", "memory_clock_mhz", 1e6),
    ("pcie_transmit_bytes_per_second", "PCIe transmit throughput.", "pcie_tx_bytes_per_s", 1.0),
    ("pcie_receive_bytes_per_second", "PCIe receive throughput.", "pcie_rx_bytes_per_s", 1.0),
    (
        "nvlink_transmit_bytes_per_second",
        "NVLink transmit throughput.",
        "nvlink_tx_bytes_per_s",
        1.0,
    ),
    ("nvlink_receive_bytes_per_second", "NVLink receive throughput.", "nvlink_rx_bytes_per_s", 1.0),
)
DCGM_GAUGES: tuple[tuple[str, str, str, float], ...] = (
    ("DCGM_FI_DEV_SM_CLOCK", "SM clock frequency (in MHz).", "sm_clock_mhz", 1.0),
    ("DCGM_FI_DEV_MEM_CLOCK", "Memory clock frequency (in MHz).", "memory_clock_mhz", 1.0),
    ("DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).", "temperature_c", 1.0),
    ("DCGM_FI_DEV_POWER_USAGE", "Power draw (in W).", "power_w", 1.0),
    ("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", "utilization_pct", 1.0),
    ("DCGM_FI_DEV_MEM_COPY_UTIL", "Memory utilization (in %).", "memory_utilization_pct", 1.0),
    ("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", "memory_used_bytes", 1 / MIB),
)


def is_loopback(host: str) -> bool:
    """Whether `host` only accepts connections from this machine."""
    if host in ("localhost", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def parse_listen(value: str, default_port: int) -> tuple[str, int]:
    """'HOST:PORT', 'HOST', ':PORT' or '[v6]:PORT' → (host, port); ValueError when malformed."""
    host, port = value, default_port
    if value.startswith("["):
        end = value.index("]")
        host, rest = value[1:end], value[end + 1 :]
        port = int(rest[1:]) if rest.startswith(":") else default_port
    elif value.count(":") == 1:
        host, raw = value.split(":")
        port = int(raw)
    if not 0 <= port <= 65535:
        raise ValueError(f"port {port} out of range")
    return host or "127.0.0.1", port


def dashboard_json() -> str:
    """The Grafana dashboard shipped with gpuwise (for `gpuwise exporter --dashboard`)."""
    return resources.files("gpuwise.monitor").joinpath("dashboard.json").read_text(encoding="utf-8")


class LiveSampler:
    """Samples in a daemon thread; keeps the latest sample and counts Xid errors."""

    def __init__(self, sampler: Sampler, interval_s: float) -> None:
        self.sampler = sampler
        self.interval_s = interval_s
        self._lock = threading.Lock()
        self._latest: Sample | None = None
        self.xid_counts: dict[tuple[str, int, int], int] = {}
        self.errors = 0
        self.last_error = ""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="gpuwise-sampler", daemon=True)

    def start(self) -> None:
        """Take the first sample now (so the first scrape has data), then keep sampling."""
        self.take()
        self._thread.start()

    def take(self) -> Sample:
        """Sample once and make it the latest."""
        sample = self.sampler.sample()
        with self._lock:
            self._latest = sample
            for g in sample.gpus:
                for xid in g.xid_events:
                    key = (g.vendor, g.index, xid)
                    self.xid_counts[key] = self.xid_counts.get(key, 0) + 1
        return sample

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                self.take()
            except Exception as exc:  # keep serving the last sample rather than die silently
                self.errors += 1
                self.last_error = f"{type(exc).__name__}: {exc}"

    def latest(self) -> tuple[Sample | None, dict[tuple[str, int, int], int]]:
        """The newest sample and a copy of the Xid counts."""
        with self._lock:
            return self._latest, dict(self.xid_counts)

    def stop(self) -> None:
        """Stop the thread (it is a daemon, so exiting also ends it)."""
        self._stop.set()


class MonitorCollector(Collector):
    """Turns the latest sample into metric families on each scrape."""

    def __init__(
        self, live: LiveSampler, dcgm_names: bool = False, hostname: str | None = None
    ) -> None:
        self.live = live
        self.dcgm_names = dcgm_names
        self.hostname = hostname or socket.gethostname()

    def collect(self) -> Iterator[Metric]:
        """The metric families of the latest sample."""
        sample, xids = self.live.latest()
        if sample is None:
            return iter(())
        if self.dcgm_names:
            return iter(dcgm_families(sample, self.hostname, xids))
        return iter(gpuwise_families(sample, xids))


def _labels(g: GpuReading) -> list[str]:
    return [g.vendor, str(g.index), g.name, g.uuid]


def gpuwise_families(sample: Sample, xids: dict[tuple[str, int, int], int]) -> list[Metric]:
    """gpuwise_-named families for one sample."""
    out: list[Metric] = []
    for suffix, doc, attr, scale in GAUGES:
        fam = GaugeMetricFamily(f"gpuwise_gpu_{suffix}", doc, labels=GPU_LABELS)
        for g in sample.gpus:
            value = getattr(g, attr)
            if value is not None:
                fam.add_metric(_labels(g), float(value) * scale)
        out.append(fam)
    out.extend(_energy_and_throttle(sample))
    out.append(_xid_family(sample, xids))
    out.append(_process_family(sample))
    out.extend(_host_families(sample))
    up = GaugeMetricFamily(
        "gpuwise_source_up", "1 when the vendor's source answered.", labels=["vendor"]
    )
    for vendor, status in sorted(sample.sources.items()):
        if not status.startswith("missing"):
            up.add_metric([vendor], 1.0 if status == "ok" else 0.0)
    out.append(up)
    return out


def _energy_and_throttle(sample: Sample) -> list[Metric]:
    energy = CounterMetricFamily(
        "gpuwise_gpu_energy_joules", "Energy used since the driver was loaded.", labels=GPU_LABELS
    )
    throttled = GaugeMetricFamily(
        "gpuwise_gpu_throttled",
        "1 while a clock-event (throttle) reason is active.",
        labels=[*GPU_LABELS, "reason"],
    )
    for g in sample.gpus:
        if g.energy_j is not None:
            energy.add_metric(_labels(g), g.energy_j)
        if g.throttle_reasons is not None:
            active = set(g.throttle_reasons)
            for name in THROTTLE_BITS.values():
                throttled.add_metric([*_labels(g), name], 1.0 if name in active else 0.0)
    return [energy, throttled]


def _xid_family(sample: Sample, xids: dict[tuple[str, int, int], int]) -> Metric:
    fam = CounterMetricFamily(
        "gpuwise_gpu_xid_errors",
        "Xid errors seen since the exporter started.",
        labels=[*GPU_LABELS, "xid"],
    )
    by_key = {(g.vendor, g.index): g for g in sample.gpus}
    for (vendor, index, xid), count in sorted(xids.items()):
        g = by_key.get((vendor, index))
        if g is not None:
            fam.add_metric([*_labels(g), str(xid)], float(count))
    return fam


def _process_family(sample: Sample) -> Metric:
    fam = GaugeMetricFamily(
        "gpuwise_process_gpu_memory_bytes",
        "GPU memory held by a process (host PID).",
        labels=[*GPU_LABELS, "pid"],
    )
    for g in sample.gpus:
        for p in g.processes or ():
            if p.gpu_memory_bytes is not None:
                fam.add_metric([*_labels(g), str(p.pid)], float(p.gpu_memory_bytes))
    return fam


def _host_families(sample: Sample) -> list[Metric]:
    h = sample.host
    if h is None:
        return []
    out: list[Metric] = []
    for name, doc, value in (
        (
            "gpuwise_host_cpu_utilization_ratio",
            "Host CPU use (0-1, all cores).",
            h.cpu_percent / 100 if h.cpu_percent is not None else None,
        ),
        ("gpuwise_host_memory_used_bytes", "Host memory in use.", h.memory_used_bytes),
        ("gpuwise_host_memory_total_bytes", "Host memory in total.", h.memory_total_bytes),
        ("gpuwise_host_disk_read_bytes_per_second", "Disk reads.", h.disk_read_bytes_per_s),
        ("gpuwise_host_disk_write_bytes_per_second", "Disk writes.", h.disk_write_bytes_per_s),
    ):
        fam = GaugeMetricFamily(name, doc)
        if value is not None:
            fam.add_metric([], float(value))
        out.append(fam)
    return out


def _dcgm_labels(g: GpuReading, hostname: str) -> list[str]:
    return [str(g.index), g.uuid, g.pci_bus_id, f"{g.vendor}{g.index}", g.name, hostname]


def dcgm_families(
    sample: Sample, hostname: str, xids: dict[tuple[str, int, int], int]
) -> list[Metric]:
    """dcgm-exporter-compatible families for one sample."""
    out: list[Metric] = []
    for name, doc, attr, scale in DCGM_GAUGES:
        fam = GaugeMetricFamily(name, doc, labels=DCGM_LABELS)
        for g in sample.gpus:
            value = getattr(g, attr)
            if value is not None:
                fam.add_metric(_dcgm_labels(g, hostname), float(value) * scale)
        out.append(fam)
    free = GaugeMetricFamily(
        "DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB).", labels=DCGM_LABELS
    )
    energy = Metric(
        "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
        "Total energy consumption since boot (in mJ).",
        "unknown",
    )
    xid = GaugeMetricFamily(
        "DCGM_FI_DEV_XID_ERRORS",
        "Value of the last XID error encountered.",
        labels=[*DCGM_LABELS, "err_code"],
    )
    last_xid = _last_xids(sample, xids)
    for g in sample.gpus:
        labels = _dcgm_labels(g, hostname)
        if g.memory_used_bytes is not None and g.memory_total_bytes is not None:
            free.add_metric(labels, (g.memory_total_bytes - g.memory_used_bytes) / MIB)
        if g.energy_j is not None:
            energy.add_sample(
                "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
                dict(zip(DCGM_LABELS, labels, strict=True)),
                g.energy_j * 1000,
            )
        if (code := last_xid.get((g.vendor, g.index))) is not None:
            xid.add_metric([*labels, str(code)], float(code))
    return [*out, free, energy, xid]


def _last_xids(sample: Sample, xids: dict[tuple[str, int, int], int]) -> dict[tuple[str, int], int]:
    """The most recent Xid per GPU: this sample's last one, else any counted one."""
    out: dict[tuple[str, int], int] = {(v, i): x for (v, i, x) in xids}
    for g in sample.gpus:
        if g.xid_events:
            out[(g.vendor, g.index)] = g.xid_events[-1]
    return out


def make_registry(
    live: LiveSampler, dcgm_names: bool, hostname: str | None = None
) -> CollectorRegistry:
    """A registry holding only gpuwise's collector (no Python process metrics)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(MonitorCollector(live, dcgm_names, hostname))
    return registry


def serve(registry: CollectorRegistry, host: str, port: int) -> Any:
    """Start the HTTP server in a daemon thread; returns it (OSError when the port is taken)."""
    from prometheus_client import start_http_server

    server, _thread = start_http_server(port, addr=host, registry=registry)
    return server
