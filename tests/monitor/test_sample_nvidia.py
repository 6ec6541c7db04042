"""NVIDIA sampling on a fake NVML fed with recorded values from several driver generations."""

from __future__ import annotations

import pynvml
import pytest

from gpuwise.monitor.alerts import gpu_alerts
from gpuwise.monitor.sample_nvidia import NvidiaSource
from tests.monitor.fake_nvml import FIXTURES, FakeNvml, fake_generation, gpu_from_xml

MIB = 1024 * 1024


def read_one(key: str, monkeypatch: pytest.MonkeyPatch) -> tuple[FakeNvml, NvidiaSource]:
    fake = fake_generation(key, monkeypatch)
    source = NvidiaSource()
    assert source.open() == "ok"
    return fake, source


def test_blackwell_590_reads_every_field(monkeypatch: pytest.MonkeyPatch) -> None:
    fake, source = read_one("590", monkeypatch)
    (g,) = source.read()
    assert g.name == "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition"
    assert g.memory_used_bytes == 65720 * MIB and g.memory_total_bytes == 97887 * MIB
    assert g.temperature_c == 24.0 and g.power_w == pytest.approx(3.99)
    assert g.power_limit_w == pytest.approx(300.0) and g.sm_clock_mhz == 180.0
    assert g.pcie_tx_bytes_per_s == 528 * 1024 and g.utilization_pct == 0.0
    assert g.energy_j is not None and g.energy_j >= 1e6  # the 1e9 mJ counter read as J
    assert g.processes is not None
    assert [(p.pid, p.gpu_memory_bytes, p.name) for p in g.processes] == [
        (116860, 65710 * MIB, "/root/src/llama.cpp/build/bin/llama-server")
    ]
    assert g.throttle_reasons is not None
    assert fake.calls.get("nvmlDeviceGetCurrentClocksEventReasons", 0) >= 1


def test_418_falls_back_to_old_throttle_name_and_v1_process_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake, source = read_one("418", monkeypatch)
    (g,) = source.read()
    assert g.name == "Graphics Device" and g.power_w == pytest.approx(8.93)
    assert fake.calls["nvmlDeviceGetCurrentClocksThrottleReasons"] >= 1
    assert g.throttle_reasons is not None  # read through the deprecated name
    assert fake.calls["nvmlDeviceGetComputeRunningProcesses"] >= 1
    assert g.processes == ()  # no process in that dump


def test_515_reads_processes_through_v2(monkeypatch: pytest.MonkeyPatch) -> None:
    fake, source = read_one("515", monkeypatch)
    (g,) = source.read()
    assert fake.calls["nvmlDeviceGetComputeRunningProcesses_v2"] >= 1
    assert "nvmlDeviceGetComputeRunningProcesses" not in fake.calls
    assert g.processes is not None and {p.pid for p in g.processes} == {675, 5762}


def test_pascal_has_no_energy_counter(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake, source = read_one("525", monkeypatch)
    (g,) = source.read()
    assert g.energy_j is None and g.power_w == pytest.approx(4.61)
    assert "energy_j" in g.unavailable()


def test_mig_a100_reports_na_not_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake, source = read_one("535-mig", monkeypatch)
    (g,) = source.read()
    assert g.utilization_pct is None and g.memory_utilization_pct is None  # N/A in the dump
    assert g.processes is None  # NoPermission: unknown, not "no processes"
    assert g.memory_total_bytes == 81920 * MIB and g.power_w == pytest.approx(67.03)
    assert {"utilization_pct", "processes"} <= set(g.unavailable())


def test_graphics_processes_are_listed(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake, source = read_one("536", monkeypatch)
    (g,) = source.read()
    assert g.processes is not None and {p.pid for p in g.processes} == {
        835,
        1481,
        2214,
        4044,
        42416,
    }


def test_xid_events_reach_the_right_gpu_and_warn(monkeypatch: pytest.MonkeyPatch) -> None:
    a = gpu_from_xml(FIXTURES / "dual-rtx-a5000-590.44.01.xml", 0)
    b = gpu_from_xml(FIXTURES / "dual-rtx-a5000-590.44.01.xml", 1)
    b.xids = [79, 13]
    FakeNvml([a, b]).install(monkeypatch)
    source = NvidiaSource()
    assert source.open() == "ok"
    first, second = source.read()
    assert first.xid_events == () and second.xid_events == (79, 13)
    keys = [al.params.get("meaning_key") for al in gpu_alerts(second)]
    assert "monitor.xid.x79" in keys and "monitor.xid.x13" in keys
    assert source.read()[1].xid_events == ()  # drained


def test_nvlink_rates_from_two_readings(monkeypatch: pytest.MonkeyPatch) -> None:
    gpu = gpu_from_xml(FIXTURES / "a100-sxm4-80gb-mig-535.54.03.xml")
    gpu.nvlink_links = 12
    FakeNvml([gpu]).install(monkeypatch)
    source = NvidiaSource()
    source.open()
    assert source.read()[0].nvlink_tx_bytes_per_s is None  # no previous reading yet
    import time

    time.sleep(0.02)
    second = source.read()[0]
    assert second.nvlink_tx_bytes_per_s is not None and second.nvlink_tx_bytes_per_s > 0


@pytest.mark.parametrize(
    ("code", "status"),
    [
        (pynvml.NVML_ERROR_LIBRARY_NOT_FOUND, "missing:library_not_found"),
        (pynvml.NVML_ERROR_DRIVER_NOT_LOADED, "failed:driver_not_loaded"),
        (pynvml.NVML_ERROR_LIB_RM_VERSION_MISMATCH, "failed:version_mismatch"),
    ],
)
def test_init_failures_are_statuses(
    code: int, status: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail() -> None:
        raise pynvml.NVMLError(code)

    monkeypatch.setattr(pynvml, "nvmlInit", fail)
    source = NvidiaSource()
    assert source.open() == status
    source.close()  # nothing to shut down, no error


def test_close_shuts_nvml_down_once(monkeypatch: pytest.MonkeyPatch) -> None:
    fake, source = read_one("590", monkeypatch)
    source.close()
    source.close()
    assert fake.shutdowns == 1


@pytest.mark.gpu
def test_real_nvml_reads_every_gpu_with_memory_and_power() -> None:
    """On a machine with an NVIDIA GPU, through the real bindings (`pytest -m gpu`)."""
    source = NvidiaSource(xid=False)
    try:
        assert source.open() == "ok"
        readings = source.read()
    finally:
        source.close()
    assert readings
    for g in readings:
        assert g.name and g.uuid.startswith(("GPU-", "MIG-"))
        assert g.memory_total_bytes is not None and g.memory_total_bytes > 2**30
        assert g.memory_used_bytes is not None and g.memory_used_bytes >= 0
        assert g.power_w is None or 0 < g.power_w < 2000
