"""NVML through nvidia-ml-py: the only module that imports `pynvml`.

Initialisation errors become typed failures with the NVML error's meaning as the reason code
(library not found, driver not loaded, blocked by the operating system on WSL, …). Per-device
calls a GPU does not support (ECC on GeForce, NVLink on PCIe cards) yield None, not an error.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from gpuwise.probe.context import ProbeContext
from gpuwise.probe.result import Failed, Found, Missing, ProbeResult

T = TypeVar("T")

# NVML return codes (nvml.h) → reason codes the rules understand.
NVML_REASONS = {
    1: "uninitialized",
    3: "not_supported",
    4: "no_permission",
    9: "driver_not_loaded",
    12: "library_not_found",
    13: "function_not_found",
    15: "gpu_lost",
    17: "os_blocked",
    18: "version_mismatch",
    999: "unknown",
}
# nvmlClocksEventReasons bits → the names nvidia-smi's XML uses.
THROTTLE_BITS = {
    0x1: "gpu_idle",
    0x2: "applications_clocks_setting",
    0x4: "sw_power_cap",
    0x8: "hw_slowdown",
    0x10: "sync_boost",
    0x20: "sw_thermal_slowdown",
    0x40: "hw_thermal_slowdown",
    0x80: "hw_power_brake_slowdown",
    0x100: "display_clocks_setting",
}


def reason_of(exc: BaseException) -> str:
    """Reason code of an NVMLError (by its numeric value), else 'error'."""
    code = getattr(exc, "value", None)
    return NVML_REASONS.get(code, f"nvml_error_{code}") if isinstance(code, int) else "error"


def _try(fn: Callable[[], T]) -> T | None:
    """Call an NVML function; any NVML error (NotSupported, NoPermission, …) gives None."""
    try:
        return fn()
    except Exception:
        return None


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def throttle_names(mask: int | None) -> list[str]:
    """Names of the set bits of a clocks-event-reasons mask."""
    if mask is None:
        return []
    return sorted(name for bit, name in THROTTLE_BITS.items() if mask & bit)


def _ecc(nv: Any, h: Any) -> dict[str, Any]:
    def count(err: int, counter: int) -> int | None:
        return _try(lambda: int(nv.nvmlDeviceGetTotalEccErrors(h, err, counter)))

    mode = _try(lambda: nv.nvmlDeviceGetEccMode(h))
    return {
        "ecc_mode": None if mode is None else ("Enabled" if mode[0] else "Disabled"),
        "ecc_corrected_volatile": count(0, 0),
        "ecc_uncorrected_volatile": count(1, 0),
        "ecc_corrected_aggregate": count(0, 1),
        "ecc_uncorrected_aggregate": count(1, 1),
    }


def _remap(nv: Any, h: Any) -> dict[str, Any]:
    rows = _try(lambda: nv.nvmlDeviceGetRemappedRows(h))  # (corr, unc, pending, failure)
    # cause 0: multiple single-bit errors, 1: double-bit errors
    pages = [_try(partial(nv.nvmlDeviceGetRetiredPages, h, cause)) for cause in (0, 1)]
    known = [len(p) for p in pages if p is not None]
    return {
        "retired_pages": sum(known) if known else None,
        "retired_pending": bool(_try(lambda: nv.nvmlDeviceGetRetiredPagesPendingStatus(h))),
        "remapped_rows_pending": bool(rows and rows[2]),
        "remapped_rows_failure": bool(rows and rows[3]),
    }


def _procs(nv: Any, h: Any) -> list[dict[str, Any]]:
    out = []
    for p in _try(lambda: nv.nvmlDeviceGetComputeRunningProcesses(h)) or []:
        raw = _try(partial(nv.nvmlSystemGetProcessName, p.pid))
        name = _text(raw) if raw is not None else ""
        used = getattr(p, "usedGpuMemory", None)
        out.append({"pid": p.pid, "type": "C", "name": name[:200], "used_memory_bytes": used})
    return out


def _nvlink(nv: Any, h: Any) -> int | None:
    """Active NVLink links; None when link 0 is not supported (a card without NVLink)."""
    if _try(lambda: nv.nvmlDeviceGetNvLinkState(h, 0)) is None:
        return None
    links = range(int(getattr(nv, "NVML_NVLINK_MAX_LINKS", 18)))
    states = [_try(partial(nv.nvmlDeviceGetNvLinkState, h, i)) for i in links]
    return sum(1 for s in states if s)


def _throttle_mask(nv: Any, h: Any) -> int | None:
    """Clocks-event reasons; older bindings only have the deprecated 'Throttle' name."""
    for name in (
        "nvmlDeviceGetCurrentClocksEventReasons",
        "nvmlDeviceGetCurrentClocksThrottleReasons",
    ):
        fn = getattr(nv, name, None)
        mask = _try(partial(fn, h)) if fn is not None else None
        if mask is not None:
            return int(mask)
    return None


def device_facts(nv: Any, i: int) -> dict[str, Any]:
    """Everything the rules use about device `i` (same keys as the nvidia-smi parser)."""
    h = nv.nvmlDeviceGetHandleByIndex(i)
    mem = _try(lambda: nv.nvmlDeviceGetMemoryInfo(h))
    cc = _try(lambda: nv.nvmlDeviceGetCudaComputeCapability(h))
    mig = _try(lambda: nv.nvmlDeviceGetMigMode(h))
    power = _try(lambda: nv.nvmlDeviceGetPowerUsage(h))
    limit = _try(lambda: nv.nvmlDeviceGetEnforcedPowerLimit(h))
    pci = _try(lambda: nv.nvmlDeviceGetPciInfo(h))
    return {
        "index": i,
        "name": _try(lambda: _text(nv.nvmlDeviceGetName(h))) or "",
        "uuid": _try(lambda: _text(nv.nvmlDeviceGetUUID(h))) or "",
        "pci_bus_id": _text(pci.busId) if pci is not None else "",
        "memory_total_bytes": int(mem.total) if mem is not None else None,
        "memory_used_bytes": int(mem.used) if mem is not None else None,
        "compute_capability": f"{cc[0]}.{cc[1]}" if cc else None,
        "mig_mode": None if mig is None else ("Enabled" if mig[0] else "Disabled"),
        **_ecc(nv, h),
        **_remap(nv, h),
        "throttle_active": throttle_names(_throttle_mask(nv, h)),
        "temperature_c": _try(lambda: float(nv.nvmlDeviceGetTemperature(h, 0))),
        "power_w": power / 1000 if power is not None else None,
        "power_limit_w": limit / 1000 if limit is not None else None,
        "pcie_gen": _try(lambda: nv.nvmlDeviceGetCurrPcieLinkGeneration(h)),
        "pcie_gen_max": _try(lambda: nv.nvmlDeviceGetMaxPcieLinkGeneration(h)),
        "pcie_width": _try(lambda: nv.nvmlDeviceGetCurrPcieLinkWidth(h)),
        "pcie_width_max": _try(lambda: nv.nvmlDeviceGetMaxPcieLinkWidth(h)),
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
        import pynvml as nv
    except ImportError as exc:
        return Missing("bindings_missing", str(exc))
    try:
        nv.nvmlInit()
    except Exception as exc:
        reason = reason_of(exc)
        cls = Missing if reason in ("library_not_found",) else Failed
        return cls(reason, str(exc)[:200])
    try:
        return Found(_system(nv))
    except Exception as exc:
        return Failed(reason_of(exc), str(exc)[:200])
    finally:
        _try(nv.nvmlShutdown)


def _system(nv: Any) -> dict[str, Any]:
    count = int(nv.nvmlDeviceGetCount())
    cuda = _try(lambda: int(nv.nvmlSystemGetCudaDriverVersion()))
    return {
        "driver_version": _try(lambda: _text(nv.nvmlSystemGetDriverVersion())) or "",
        "cuda_version": cuda_version_text(cuda),
        "gpus": [device_facts(nv, i) for i in range(count)],
    }
