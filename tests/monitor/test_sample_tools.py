"""AMD, Ascend and Apple sampling on fake tools replaying recorded outputs, the amdsmi library
through a stand-in module, the host through psutil, and the sampler's failure handling."""

from __future__ import annotations

import time
import types
from pathlib import Path
from typing import Any

import pytest

from gpuwise.monitor.model import GpuReading
from gpuwise.monitor.sample_amd import AmdSource, parse_rocm_smi_sample
from gpuwise.monitor.sample_apple import AppleSource, parse_ioreg, parse_powermetrics_gpu_w
from gpuwise.monitor.sample_ascend import AscendSource, parse_npu_smi_sample
from gpuwise.monitor.sample_host import HostSource
from gpuwise.monitor.sampler import Sampler
from tests.probe.support import FIXTURES, fake_path

MIB = 1024 * 1024


def tool_env(tmp_path: Path, tool: str, fixture: str | None, mode: str = "ok") -> dict[str, str]:
    var = tool.upper().replace("-", "_")
    env = {"PATH": fake_path(tmp_path, tool), f"FAKE_{var}_MODE": mode}
    if fixture:
        env[f"FAKE_{var}_FILE"] = str(FIXTURES / fixture)
    return env


def test_rocm_smi_mi100_cards(tmp_path: Path) -> None:
    source = AmdSource(
        tool_env(tmp_path, "rocm-smi", "rocm-smi/mi100-x4-rocm-6.0.2.json"), lib=False
    )
    assert source.open() == "ok"
    cards = source.read()
    assert [c.index for c in cards] == [0, 1, 2, 3]
    c = cards[0]
    assert c.name == "Arcturus GL-XL [Instinct MI100]" and c.vendor == "amd"
    assert c.memory_total_bytes == 34342961152 and c.memory_used_bytes == 6750208
    assert c.temperature_c == 53.0 and c.power_w == 36.0 and c.power_limit_w == 290.0
    assert c.utilization_pct == 0.0 and c.sm_clock_mhz == 300.0
    assert c.energy_j is None and c.processes is None  # rocm-smi --json has neither


def test_rocm_smi_key_spellings_of_6_1() -> None:
    text = (FIXTURES / "rocm-smi/rx6700xt-rocm-6.1.2.json").read_text()
    (card,) = parse_rocm_smi_sample(text)
    assert card.name.startswith("Navi 22") and card.memory_used_bytes == 1572745216
    assert card.memory_utilization_pct == 12.0


def test_rocm_smi_hang_is_killed_and_reported(tmp_path: Path) -> None:
    env = tool_env(tmp_path, "rocm-smi", None, mode="hang")
    sampler = Sampler([AmdSource(env, lib=False, timeout_s=0.3)], host=False)
    assert sampler.open() == {"amd": "ok"}
    start = time.monotonic()
    sample = sampler.sample()
    assert time.monotonic() - start < 3
    assert sample.gpus == () and sample.sources == {"amd": "timeout"}


def test_rocm_smi_garbage_is_a_failed_status(tmp_path: Path) -> None:
    sampler = Sampler([AmdSource(tool_env(tmp_path, "rocm-smi", None, "garbage"), lib=False)])
    sampler.open()
    sample = sampler.sample()
    assert sample.sources["amd"] == "failed:ValueError" and sample.host is not None


def test_no_amd_tool_and_no_library(tmp_path: Path) -> None:
    assert AmdSource({"PATH": str(tmp_path)}, lib=False).open() == "missing:not_present"


def fake_amdsmi() -> Any:
    """The amdsmi calls gpuwise uses, answering with the shapes of amdsmi 7.0.2's docstrings
    (research notes wave2.md §1); values are made up for the test."""
    mod = types.SimpleNamespace()
    mod.amdsmi_init = lambda: None
    mod.amdsmi_shut_down = lambda: None
    mod.amdsmi_get_processor_handles = lambda: ["h0"]
    mod.amdsmi_get_gpu_vram_usage = lambda h: {"vram_total": 196592, "vram_used": 12000}
    mod.amdsmi_get_power_info = lambda h: {
        "current_socket_power": "N/A",
        "average_socket_power": 412,
        "power_limit": 750,
    }
    mod.amdsmi_get_gpu_activity = lambda h: {"gfx_activity": 97, "umc_activity": 40}
    mod.amdsmi_get_gpu_asic_info = lambda h: {"market_name": "AMD Instinct MI300X"}
    mod.AmdSmiTemperatureType = types.SimpleNamespace(EDGE=0)
    mod.AmdSmiTemperatureMetric = types.SimpleNamespace(CURRENT=0)
    mod.amdsmi_get_temp_metric = lambda h, kind, metric: 61
    mod.amdsmi_get_energy_count = lambda h: {
        "energy_accumulator": 2_000_000,
        "counter_resolution": 15.3,
        "timestamp": 1,
    }
    mod.amdsmi_get_gpu_process_list = lambda h: [
        {"pid": 4242, "name": "python", "mem": 1, "memory_usage": {"vram_mem": 8 * 2**30}}
    ]
    return mod


def test_amdsmi_library_readings() -> None:
    source = AmdSource({}, lib=fake_amdsmi())
    assert source.open() == "ok"
    (g,) = source.read()
    assert g.name == "AMD Instinct MI300X" and g.memory_total_bytes == 196592 * MIB
    assert g.power_w == 412.0  # current power N/A → average
    assert g.temperature_c == 61.0 and g.utilization_pct == 97.0
    assert g.energy_j == pytest.approx(2_000_000 * 15.3e-6)
    assert g.processes is not None and g.processes[0].gpu_memory_bytes == 8 * 2**30


def test_npu_smi_910b(tmp_path: Path) -> None:
    source = AscendSource(tool_env(tmp_path, "npu-smi", "npu-smi/910b4-1-x2-npu-smi-25.2.0.txt"))
    assert source.open() == "ok"
    a, b = source.read()
    assert a.name == "910B4-1" and a.power_w == 91.3 and a.temperature_c == 33.0
    assert a.memory_used_bytes == 3197 * MIB and a.memory_total_bytes == 65536 * MIB
    assert a.utilization_pct == 0.0 and b.index == 1 and b.power_w == 88.1
    assert a.processes is None  # this output has no process table


def test_npu_smi_second_chip_power_is_na_not_zero() -> None:
    text = (FIXTURES / "npu-smi/ascend910-2chip-npu-smi-25.3.rc1.txt").read_text()
    first, second = parse_npu_smi_sample(text)
    assert first.power_w == 163.6 and second.power_w is None
    assert "power_w" in second.unavailable()


def test_npu_smi_process_table() -> None:
    text = (FIXTURES / "npu-smi/ascend910-procs-npu-smi-12980.txt").read_text()
    (chip,) = parse_npu_smi_sample(text)
    assert chip.memory_used_bytes == 31877 * MIB and chip.temperature_c == 35.0
    assert chip.processes == ()  # NPU 7 chip 1 runs nothing; NPU 0 chip 0 runs python3.1
    from gpuwise.monitor.sample_ascend import _processes

    (proc,) = _processes(text)[(0, 0)]
    assert proc.pid == 632268 and proc.gpu_memory_bytes == 197 * MIB and proc.name == "python3.1"


def test_ioreg_m1_pro(tmp_path: Path) -> None:
    source = AppleSource(tool_env(tmp_path, "ioreg", "ioreg/m1-pro-agx-g13x-stats-1094.txt"))
    assert source.open() == "ok"
    (g,) = source.read()
    assert g.vendor == "apple" and g.name == "AGXAcceleratorG13X"
    assert g.utilization_pct == 2.0 and g.memory_used_bytes == 340983808
    assert g.memory_total_bytes is not None  # unified memory: the machine's RAM
    assert g.power_w is None  # powermetrics needs root; gpuwise never runs sudo


def test_ioreg_without_statistics_is_an_error() -> None:
    with pytest.raises(ValueError):
        parse_ioreg("+-o IntelAccelerator  <class IntelAccelerator>\n    {\n    }\n")


def test_powermetrics_line() -> None:
    # the line format documented in research notes wave2.md §1 ("GPU Power: N mW")
    assert parse_powermetrics_gpu_w("**** GPU usage ****\nGPU Power: 1234 mW\n") == 1.234
    assert parse_powermetrics_gpu_w("nothing") is None


def test_host_reading() -> None:
    host = HostSource()
    host.open()
    time.sleep(0.05)
    h = host.read()
    assert (
        h.memory_total_bytes
        and h.memory_used_bytes
        and 0 < h.memory_used_bytes < h.memory_total_bytes
    )
    assert h.cpu_percent is not None and h.cpu_count


class Broken:
    vendor = "broken"

    def open(self) -> str:
        raise RuntimeError("binding exploded")

    def read(self) -> list[GpuReading]:
        raise AssertionError("never read")

    def close(self) -> None:
        raise AssertionError("never closed")


def test_a_source_that_breaks_on_open_is_left_out() -> None:
    sampler = Sampler([Broken()], host=False)
    assert sampler.open() == {"broken": "failed:RuntimeError"}
    assert sampler.sample().gpus == () and sampler.vendors == []
    sampler.close()
