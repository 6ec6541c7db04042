"""Each bench figure beside the datasheet peak and a healthy card's share of it (pure).

healthy share: the architecture's measured matmul ceiling (speed.toml `matmul_fraction`, the
MAMF table) for 16-bit matmul, the link's all-reduce share (`link_model`) for busbw, and the
`bench_reference` entries (data/bench.toml) otherwise. A figure under `low_below` × the healthy
share is "low"; the monitor's readings taken during the bench name the likely causes: a power
limit under the card's TDP or power-cap throttling, thermal slowdown, clocks held by an
application-clocks setting, a PCIe link running narrower or slower than it can, other processes
on the device.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpuwise.catalog.schema import Gpu
from gpuwise.catalog.schema_bench import BenchReference
from gpuwise.estimate.speed_constants import SpeedConstants
from gpuwise.monitor.model import Sample

POWER_REASONS = {"sw_power_cap", "hw_power_brake_slowdown"}
THERMAL_REASONS = {"sw_thermal_slowdown", "hw_thermal_slowdown", "hw_slowdown"}
CLOCK_REASONS = {"applications_clocks_setting"}
COMPUTE_CAUSES = ("power_cap", "thermal", "clocks", "busy")


@dataclass(frozen=True)
class Reference:
    """A healthy card's share of the peak, the low threshold, and their sources."""

    healthy_fraction: float
    low_below: float
    sources: tuple[str, ...]


VISIBLE_VARS = {
    "nvidia": ("CUDA_VISIBLE_DEVICES",),
    "amd": ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"),
}
"""The variables that renumber the devices PyTorch sees, per vendor (the first one set wins)."""


def monitor_index(
    samples: Iterable[Sample],
    vendor: str,
    torch_index: int,
    uuid: str | None,
    env: Mapping[str, str],
) -> int | None:
    """The monitor's (NVML / rocm-smi) index of the device PyTorch calls `torch_index`.

    PyTorch numbers only the devices CUDA_VISIBLE_DEVICES (HIP_/ROCR_VISIBLE_DEVICES on ROCm)
    lets through, in that order, and CUDA orders by speed unless CUDA_DEVICE_ORDER=PCI_BUS_ID,
    while NVML numbers every device by PCI bus. The device's UUID settles it when PyTorch gives
    one; else the variable's entry (an index, or a UUID or its prefix); else, with no variable
    set, the same index. None when nothing matches: better no readings than another card's.
    """
    gpus = {g.index: g.uuid for s in samples for g in s.gpus if g.vendor == vendor}
    if uuid:
        hit = [i for i, u in gpus.items() if u and u.lower() == uuid.lower()]
        if hit:
            return hit[0]
    value = next((env[v] for v in VISIBLE_VARS.get(vendor, ()) if env.get(v, "").strip()), None)
    if value is None:
        return torch_index
    entries = [e.strip() for e in value.split(",") if e.strip()]
    if torch_index >= len(entries):
        return None
    entry = entries[torch_index]
    if entry.isdigit():
        return int(entry)
    hit = [i for i, u in gpus.items() if u and u.lower().startswith(entry.lower())]
    return hit[0] if len(hit) == 1 else None


def digest(
    samples: Iterable[Sample], vendor: str, index: int | None, own_pid: int
) -> dict[str, Any]:
    """What the monitor saw on the benched device: peaks, limits, throttle reasons, other PIDs."""
    rows = [g for s in samples for g in s.gpus if g.vendor == vendor and g.index == index]

    def values(name: str) -> list[float]:
        return [float(v) for g in rows if (v := getattr(g, name)) is not None]

    reasons = sorted({r for g in rows for r in (g.throttle_reasons or ()) if r != "gpu_idle"})
    others = sorted({p.pid for g in rows for p in (g.processes or ()) if p.pid != own_pid})
    temps, power, clocks, limits = (
        values(n) for n in ("temperature_c", "power_w", "sm_clock_mhz", "power_limit_w")
    )
    return {
        "samples": len(rows),
        "max_temperature_c": max(temps, default=None),
        "max_power_w": max(power, default=None),
        "power_limit_w": min(limits, default=None),
        "min_sm_clock_mhz": min(clocks, default=None),
        "max_sm_clock_mhz": max(clocks, default=None),
        "throttle_reasons": reasons,
        "other_pids": others,
    }


def causes(
    seen: Mapping[str, Any], gpu: Gpu | None, link: Mapping[str, Any] | None, kinds: Sequence[str]
) -> list[str]:
    """Likely causes of a low figure from the readings, in the order `kinds` lists them."""
    reasons = set(seen.get("throttle_reasons") or ())
    limit = seen.get("power_limit_w")
    found = {
        "power_cap": bool(reasons & POWER_REASONS)
        or bool(gpu and gpu.tdp_w and limit is not None and limit + 1 < gpu.tdp_w),
        "thermal": bool(reasons & THERMAL_REASONS),
        "clocks": bool(reasons & CLOCK_REASONS),
        "busy": bool(seen.get("other_pids")),
        "pcie_link": bool(link) and _narrow(link or {}),
    }
    return [k for k in kinds if found.get(k)]


def _narrow(link: Mapping[str, Any]) -> bool:
    """The link trained below what both ends support (NVML current vs max width/generation)."""
    pairs = (("pcie_width", "pcie_width_max"), ("pcie_gen", "pcie_gen_max"))
    return any(
        link.get(cur) is not None and link.get(top) is not None and link[cur] < link[top]
        for cur, top in pairs
    )


def reference(
    refs: Sequence[BenchReference], metric: str, architecture: str
) -> BenchReference | None:
    """The bench_reference for this architecture, else the generic one."""
    arch = architecture.lower()
    for want in (arch, "any"):
        hit = next((r for r in refs if r.metric == metric and r.architecture.lower() == want), None)
        if hit:
            return hit
    return None


def healthy(
    metric: str, dtype: str, gpu: Gpu, sc: SpeedConstants, refs: Sequence[BenchReference]
) -> Reference | None:
    """The healthy share for one figure on this card (catalog data only, never calibration)."""
    base = reference(refs, metric, gpu.architecture)
    if base is None:
        return None
    if metric == "matmul" and dtype in ("bf16", "fp16"):
        arch = gpu.architecture.lower()
        ceiling = next((m for m in sc.matmul if m.architecture.lower() == arch), None)
        if ceiling is not None:
            return Reference(ceiling.fraction, base.low_below, (ceiling.source, base.source))
    if metric == "allreduce":
        link = sc.link(gpu, 2)
        return Reference(link.bus_bandwidth_fraction, base.low_below, (link.source, base.source))
    return Reference(base.healthy_fraction, base.low_below, tuple(base.source_ids()))


def judge(
    figure: str,
    measured: float,
    peak: float | None,
    ref: Reference | None,
    cause_list: list[str],
    unit: str,
) -> dict[str, Any]:
    """One figure: measured, datasheet, share, the healthy share and the verdict."""
    out: dict[str, Any] = {"figure": figure, "measured": measured, "unit": unit, "datasheet": peak}
    if not peak or ref is None:
        return {**out, "verdict": "no_reference", "fraction": None, "causes": []}
    fraction = measured / peak
    low = fraction < ref.healthy_fraction * ref.low_below
    return {
        **out,
        "fraction": fraction,
        "healthy_fraction": ref.healthy_fraction,
        "expected": peak * ref.healthy_fraction,
        "verdict": "low" if low else "healthy",
        "causes": (cause_list or ["unknown"]) if low else [],
        "sources": list(dict.fromkeys(ref.sources)),
    }
