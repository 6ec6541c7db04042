"""The one door to NVML: the only module that imports `pynvml` (ruff bans it everywhere else).

The doctor's probe (probe/nvml.py), the monitor's sampler (monitor/sample_nvidia.py) and the
bench (bench/runner.py) all read NVIDIA GPUs through NVML. They used to import the bindings
themselves with their own copies of the "call, and None on any NVML error" helper, and those
copies had begun to differ (one decoded names strictly, one with replacement). Everything they
share lives here: loading the bindings, the error-tolerant call, name decoding, the meaning of
NVML's error codes and of the clocks-event bits, and a session that always shuts NVML down.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any, TypeVar

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
MISSING_REASONS = frozenset({"bindings_missing", "library_not_found"})
"""Reasons that mean "no NVML here" (a Missing), as opposed to an NVML that fails (a Failed)."""

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


class NvmlUnavailable(Exception):
    """NVML could not be used at all: `reason` is one of NVML_REASONS' values (or
    "bindings_missing"); `missing` says whether that means "not installed" rather than broken."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail[:200]

    @property
    def missing(self) -> bool:
        """True for "no NVML on this machine", False for "NVML is there and failed"."""
        return self.reason in MISSING_REASONS


def bindings() -> Any:
    """The `pynvml` module (nvidia-ml-py); NvmlUnavailable("bindings_missing") without it.

    Imported on every call, not at module load: tests put a stand-in under sys.modules.
    """
    try:
        import pynvml
    except ImportError as exc:
        raise NvmlUnavailable("bindings_missing", str(exc)) from exc
    return pynvml


def reason_of(exc: BaseException) -> str:
    """Reason code of an NVMLError (by its numeric value), else 'error'."""
    code = getattr(exc, "value", None)
    return NVML_REASONS.get(code, f"nvml_error_{code}") if isinstance(code, int) else "error"


def init(nv: Any) -> None:
    """`nvmlInit`, with any NVML error turned into NvmlUnavailable(reason)."""
    try:
        nv.nvmlInit()
    except Exception as exc:
        raise NvmlUnavailable(reason_of(exc), str(exc)) from exc


@contextmanager
def session(nv: Any | None = None) -> Iterator[Any]:
    """Initialised bindings for the `with` block, shut down after it (errors ignored)."""
    nv = bindings() if nv is None else nv
    init(nv)
    try:
        yield nv
    finally:
        call(nv.nvmlShutdown)


def call(fn: Callable[[], T]) -> T | None:
    """One NVML call; any NVML error (NotSupported on GeForce, NoPermission, FunctionNotFound on
    an old driver) or a missing function gives None, so one unsupported field never loses the
    others."""
    try:
        return fn()
    except Exception:
        return None


def text(value: Any) -> str:
    """An NVML string (bytes in older bindings) as text; bad bytes never fail the field."""
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


def throttle_names(mask: int | None) -> list[str]:
    """Names of the set bits of a clocks-event-reasons mask."""
    if mask is None:
        return []
    return sorted(name for bit, name in THROTTLE_BITS.items() if mask & bit)


def throttle_mask(nv: Any, handle: Any) -> int | None:
    """Clocks-event reasons; drivers before the rename only have the 'Throttle' name."""
    for name in (
        "nvmlDeviceGetCurrentClocksEventReasons",
        "nvmlDeviceGetCurrentClocksThrottleReasons",
    ):
        fn = getattr(nv, name, None)
        mask = call(partial(fn, handle)) if fn is not None else None
        if mask is not None:
            return int(mask)
    return None


def active_nvlinks(nv: Any, handle: Any) -> list[int] | None:
    """Indexes of the NVLink links that are up; None when link 0 is not supported (a PCIe card
    without NVLink)."""
    if call(lambda: nv.nvmlDeviceGetNvLinkState(handle, 0)) is None:
        return None
    links = range(int(getattr(nv, "NVML_NVLINK_MAX_LINKS", 18)))
    return [i for i in links if call(partial(nv.nvmlDeviceGetNvLinkState, handle, i))]
