"""The doctor's NVML probe: driver, CUDA and every GPU's health, through probe/nvml_lib.py.

Initialisation errors become typed failures with the NVML error's meaning as the reason code
(library not found, driver not loaded, blocked by the operating system on WSL, …). Per-device
calls a GPU does not support (ECC on GeForce, NVLink on PCIe cards) yield None, not an error.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from gpuwise.parse.result import Failed, Found, Missing, ProbeResult
from gpuwise.probe import nvml_lib as lib
from gpuwise.probe.context import ProbeContext


def _ecc(nv: Any, h: Any) -> dict[str, Any]:
    def count(err: int, counter: int) -> int | None:
        return lib.call(lambda: int(nv.nvmlDeviceGetTotalEccErrors(h, err, counter)))

    mode = lib.call(lambda: nv.nvmlDeviceGetEccMode(h))
    return {
        "ecc_mode": None if mode is None else ("Enabled" if mode[0] else "Disabled"),
        "ecc_corrected_volatile": count(0, 0),
        "ecc_uncorrected_volatile": count(1, 0),
        "ecc_corrected_aggregate": count(0, 1),
        "ecc_uncorrected_aggregate": count(1, 1),
    }


def _remap(nv: Any, h: Any) -> dict[str, Any]:
    rows = lib.call(lambda: nv.nvmlDeviceGetRemappedRows(h))  # (corr, unc, pending, failure)
    # cause 0: multiple single-bit errors, 1: double-bit errors
    pages = [lib.call(partial(nv.nvmlDeviceGetRetiredPages, h, cause)) for cause in (0, 1)]
    known = [len(p) for p in pages if p is not None]
    return {
        "retired_pages": sum(known) if known else None,
        "retired_pending": bool(lib.call(lambda: nv.nvmlDeviceGetRetiredPagesPendingStatus(h))),
        "remapped_rows_pending": bool(rows and rows[2]),
        "remapped_rows_failure": bool(rows and rows[3]),
    }


def _procs(nv: Any, h: Any) -> list[dict[str, Any]]:
    out = []
    for p in lib.call(lambda: nv.nvmlDeviceGetComputeRunningProcesses(h)) or []:
        raw = lib.call(partial(nv.nvmlSystemGetProcessName, p.pid))
        name = lib.text(raw) if raw is not None else ""
        used = getattr(p, "usedGpuMemory", None)
        out.append({"pid": p.pid, "type": "C", "name": name[:200], "used_memory_bytes": used})
    return out


def _nvlink(nv: Any, h: Any) -> int | None:
    """Active NVLink links; None when link 0 is not supported (a card without NVLink)."""
    links = lib.active_nvlinks(nv, h)
    return None if links is None else len(links)


def device_facts(nv: Any, i: int) -> dict[str, Any]:
    """Everything the rules use about device `i` (same keys as the nvidia-smi parser)."""
    h = nv.nvmlDeviceGetHandleByIndex(i)
    mem = lib.call(lambda: nv.nvmlDeviceGetMemoryInfo(h))
    cc = lib.call(lambda: nv.nvmlDeviceGetCudaComputeCapability(h))
    mig = lib.call(lambda: nv.nvmlDeviceGetMigMode(h))
    power = lib.call(lambda: nv.nvmlDeviceGetPowerUsage(h))
    limit = lib.call(lambda: nv.nvmlDeviceGetEnforcedPowerLimit(h))
    pci = lib.call(lambda: nv.nvmlDeviceGetPciInfo(h))
    return {
        "index": i,
        "name": lib.call(lambda: lib.text(nv.nvmlDeviceGetName(h))) or "",
        "uuid": lib.call(lambda: lib.text(nv.nvmlDeviceGetUUID(h))) or "",
        "pci_bus_id": lib.text(pci.busId) if pci is not None else "",
        "memory_total_bytes": int(mem.total) if mem is not None else None,
        "memory_used_bytes": int(mem.used) if mem is not None else None,
        "compute_capability": f"{cc[0]}.{cc[1]}" if cc else None,
        "mig_mode": None if mig is None else ("Enabled" if mig[0] else "Disabled"),
        **_ecc(nv, h),
        **_remap(nv, h),
        "throttle_active": lib.throttle_names(lib.throttle_mask(nv, h)),
        "temperature_c": lib.call(lambda: float(nv.nvmlDeviceGetTemperature(h, 0))),
        "power_w": power / 1000 if power is not None else None,
        "power_limit_w": limit / 1000 if limit is not None else None,
        "pcie_gen": lib.call(lambda: nv.nvmlDeviceGetCurrPcieLinkGeneration(h)),
        "pcie_gen_max": lib.call(lambda: nv.nvmlDeviceGetMaxPcieLinkGeneration(h)),
        "pcie_width": lib.call(lambda: nv.nvmlDeviceGetCurrPcieLinkWidth(h)),
        "pcie_width_max": lib.call(lambda: nv.nvmlDeviceGetMaxPcieLinkWidth(h)),
        "nvlink_active": _nvlink(nv, h),
        "processes": _procs(nv, h),
    }


def cuda_version_text(code: int | None) -> str:
    """NVML's CUDA driver version integer (12040) as "12.4"."""
    if not code:
        return ""
    return f"{code // 1000}.{(code % 1000) // 10}"


def probe_nvml(ctx: ProbeContext) -> ProbeResult:
    """Driver, highest CUDA it supports, and every GPU, through NVML."""
    try:
        with lib.session() as nv:
            try:
                return Found(_system(nv))
            except Exception as exc:
                return Failed(lib.reason_of(exc), str(exc)[:200])
    except lib.NvmlUnavailable as exc:
        return (Missing if exc.missing else Failed)(exc.reason, exc.detail)


def _system(nv: Any) -> dict[str, Any]:
    count = int(nv.nvmlDeviceGetCount())
    cuda = lib.call(lambda: int(nv.nvmlSystemGetCudaDriverVersion()))
    return {
        "driver_version": lib.call(lambda: lib.text(nv.nvmlSystemGetDriverVersion())) or "",
        "cuda_version": cuda_version_text(cuda),
        "gpus": [device_facts(nv, i) for i in range(count)],
    }
