"""NVML probe with a stand-in `pynvml` module: error codes become reasons, unsupported calls
become None, and the device facts have the same keys as the nvidia-smi parser."""

from __future__ import annotations

import re
import sys
import time
import types
from pathlib import Path
from typing import Any

import pytest

from gpuwise.parse.result import Failed, Found, Missing
from gpuwise.probe.context import ProbeContext
from gpuwise.probe.nvml import probe_nvml
from tests.conftest import nvidia_driver_library


class NVMLError(Exception):
    def __init__(self, value: int) -> None:
        super().__init__(f"NVML error {value}")
        self.value = value


def fake_pynvml(init_error: int | None = None) -> types.ModuleType:
    mod = types.ModuleType("pynvml")

    def unsupported(*_a: Any) -> Any:
        raise NVMLError(3)

    def init() -> None:
        if init_error is not None:
            raise NVMLError(init_error)

    mem = types.SimpleNamespace(total=80 * 2**30, used=70 * 2**30)
    proc = types.SimpleNamespace(pid=4242, usedGpuMemory=70 * 2**30)
    funcs: dict[str, Any] = {
        "nvmlInit": init,
        "nvmlShutdown": lambda: None,
        "nvmlDeviceGetCount": lambda: 1,
        "nvmlSystemGetDriverVersion": lambda: "550.54.14",
        "nvmlSystemGetCudaDriverVersion": lambda: 12040,
        "nvmlDeviceGetHandleByIndex": lambda i: f"h{i}",
        "nvmlDeviceGetName": lambda h: b"NVIDIA A100-SXM4-80GB",
        "nvmlDeviceGetUUID": lambda h: "GPU-1",
        "nvmlDeviceGetPciInfo": lambda h: types.SimpleNamespace(busId=b"00000000:07:00.0"),
        "nvmlDeviceGetMemoryInfo": lambda h: mem,
        "nvmlDeviceGetCudaComputeCapability": lambda h: (8, 0),
        "nvmlDeviceGetMigMode": lambda h: (0, 0),
        "nvmlDeviceGetEccMode": lambda h: (1, 1),
        "nvmlDeviceGetTotalEccErrors": lambda h, e, c: 2 if e == 1 and c == 0 else 0,
        "nvmlDeviceGetRemappedRows": lambda h: (0, 0, True, False),
        "nvmlDeviceGetRetiredPages": unsupported,
        "nvmlDeviceGetRetiredPagesPendingStatus": unsupported,
        "nvmlDeviceGetCurrentClocksEventReasons": lambda h: 0x40 | 0x1,
        "nvmlDeviceGetTemperature": lambda h, s: 91,
        "nvmlDeviceGetPowerUsage": lambda h: 250000,
        "nvmlDeviceGetEnforcedPowerLimit": lambda h: 400000,
        "nvmlDeviceGetCurrPcieLinkGeneration": lambda h: 4,
        "nvmlDeviceGetMaxPcieLinkGeneration": lambda h: 4,
        "nvmlDeviceGetCurrPcieLinkWidth": lambda h: 8,
        "nvmlDeviceGetMaxPcieLinkWidth": lambda h: 16,
        "nvmlDeviceGetNvLinkState": lambda h, i: 1 if i < 12 else unsupported(),
        "nvmlDeviceGetComputeRunningProcesses": lambda h: [proc],
        "nvmlSystemGetProcessName": lambda pid: b"python",
        "NVML_NVLINK_MAX_LINKS": 18,
    }
    for name, fn in funcs.items():
        setattr(mod, name, fn)
    return mod


def ctx(tmp_path: Path) -> ProbeContext:
    return ProbeContext(deadline=time.monotonic() + 5, env={}, root=tmp_path)


def test_device_facts_have_the_smi_keys_and_unsupported_calls_give_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", fake_pynvml())
    r = probe_nvml(ctx(tmp_path))
    assert isinstance(r, Found)
    assert r.facts["driver_version"] == "550.54.14" and r.facts["cuda_version"] == "12.4"
    g = r.facts["gpus"][0]
    assert g["name"] == "NVIDIA A100-SXM4-80GB" and g["compute_capability"] == "8.0"
    assert g["ecc_uncorrected_volatile"] == 2 and g["remapped_rows_pending"] is True
    assert g["retired_pages"] is None  # NotSupported → None, not an error
    assert g["throttle_active"] == ["gpu_idle", "hw_thermal_slowdown"]
    assert g["power_w"] == 250.0 and g["pcie_width"] == 8 and g["nvlink_active"] == 12
    assert g["processes"][0] == {
        "pid": 4242,
        "type": "C",
        "name": "python",
        "used_memory_bytes": 70 * 2**30,
    }


@pytest.mark.parametrize(
    ("code", "cls", "reason"),
    [
        (12, Missing, "library_not_found"),
        (9, Failed, "driver_not_loaded"),
        (17, Failed, "os_blocked"),
        (18, Failed, "version_mismatch"),
        (4, Failed, "no_permission"),
        (77, Failed, "nvml_error_77"),
    ],
)
def test_init_errors_become_missing_or_failed_with_the_nvml_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, cls: type, reason: str
) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", fake_pynvml(init_error=code))
    r = probe_nvml(ctx(tmp_path))
    assert isinstance(r, cls) and r.reason == reason


def test_real_bindings_without_a_driver_report_the_library_missing(tmp_path: Path) -> None:
    """Regression (review 3): this test accepted any status but a hang, so it could not fail.
    Without an NVIDIA driver library the real bindings must say exactly that."""
    if nvidia_driver_library():
        pytest.skip("an NVIDIA driver library is installed: the gpu-marked test checks it")
    r = probe_nvml(ctx(tmp_path))
    assert isinstance(r, Missing), r
    assert r.reason in ("library_not_found", "bindings_missing")


@pytest.mark.gpu
def test_real_bindings_read_every_gpu_of_this_machine(tmp_path: Path) -> None:
    """On a machine with an NVIDIA GPU: the driver, and every GPU with a name, a compute
    capability and its memory (run with `pytest -m gpu` there)."""
    r = probe_nvml(ctx(tmp_path))
    assert isinstance(r, Found), r
    assert re.fullmatch(r"\d+\.\d+(\.\d+)?", r.facts["driver_version"])
    assert re.fullmatch(r"\d+\.\d+", r.facts["cuda_version"])
    assert r.facts["gpus"]
    for g in r.facts["gpus"]:
        assert g["name"] and re.fullmatch(r"\d+\.\d", g["compute_capability"] or "")
        assert g["memory_total_bytes"] > 2**30
        assert 0 <= g["memory_used_bytes"] <= g["memory_total_bytes"]
