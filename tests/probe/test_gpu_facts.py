"""The typed GPU the doctor's rules read (parse/gpu_facts.py) covers every key each source
writes: NVML, nvidia-smi XML, and the pasted nvidia-smi table and `-q` text. A key a source
adds without a field would be dropped silently before the rules; these tests catch it."""

from __future__ import annotations

import dataclasses
import sys
import time
import types
from pathlib import Path

import pytest

from gpuwise.doctor.paste.smi import find_query, parse_table
from gpuwise.parse.gpu_facts import (
    GpuProcess,
    NvidiaGpu,
    TorchDevice,
    gpus_from_facts,
    torch_devices_from_facts,
)
from gpuwise.parse.nvidia_smi import parse_nvidia_smi_xml
from gpuwise.parse.result import Found
from gpuwise.parse.view import Facts, capabilities, nvidia_gpus, torch_devices
from gpuwise.probe._torch_child import devices
from gpuwise.probe.context import ProbeContext
from gpuwise.probe.nvml import probe_nvml
from tests.probe.support import FIXTURES
from tests.probe.test_nvml import fake_pynvml

DEVICE_FIELDS = {f.name for f in dataclasses.fields(TorchDevice)}
GPU_FIELDS = {f.name for f in dataclasses.fields(NvidiaGpu)}
PROCESS_FIELDS = {f.name for f in dataclasses.fields(GpuProcess)}
TABLE = """\
| NVIDIA-SMI 550.54.14              Driver Version: 550.54.14      CUDA Version: 12.4     |
|-----------------------------------------+------------------------+----------------------+
|   0  NVIDIA GeForce RTX 4090        Off |   00000000:01:00.0 Off |                  Off |
|  0%   40C    P8             20W /  450W |   20000MiB /  24564MiB |      0%      Default |
+-----------------------------------------+------------------------+----------------------+
| Processes:                                                                              |
|    0   N/A  N/A      4242      C   python                                      20000MiB |
+-----------------------------------------------------------------------------------------+
"""


def _keys(gpus: list[dict[str, object]]) -> tuple[set[str], set[str]]:
    gpu_keys = {k for g in gpus for k in g}
    proc_keys = {k for g in gpus for p in g.get("processes") or [] for k in p}  # type: ignore[attr-defined]
    return gpu_keys, proc_keys


@pytest.mark.parametrize("name", sorted(p.name for p in (FIXTURES / "nvidia-smi").glob("*.xml")))
def test_every_nvidia_smi_xml_key_is_a_field(name: str) -> None:
    gpus = parse_nvidia_smi_xml((FIXTURES / "nvidia-smi" / name).read_text())["gpus"]
    gpu_keys, proc_keys = _keys(gpus)
    assert gpu_keys <= GPU_FIELDS, gpu_keys - GPU_FIELDS
    assert proc_keys <= PROCESS_FIELDS, proc_keys - PROCESS_FIELDS


def test_every_nvml_key_is_a_field_and_reads_back_typed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", fake_pynvml())
    r = probe_nvml(ProbeContext(deadline=time.monotonic() + 5, env={}, root=tmp_path))
    assert isinstance(r, Found)
    gpu_keys, proc_keys = _keys(r.facts["gpus"])
    assert gpu_keys <= GPU_FIELDS and proc_keys <= PROCESS_FIELDS
    (gpu,) = nvidia_gpus({"nvml": r})
    assert gpu.index == 0 and gpu.compute_capability == "8.0"
    assert gpu.ecc_uncorrected_volatile == 2 and gpu.remapped_rows_pending is True
    assert gpu.throttle_active == ("gpu_idle", "hw_thermal_slowdown")
    assert gpu.processes == (GpuProcess(4242, "python", "C", 70 * 2**30),)


def test_pasted_table_and_query_keys_are_fields() -> None:
    table = parse_table(TABLE)["gpus"]
    query = find_query("==============NVSMI LOG==============\nProduct Name : Tesla T4\n")
    for gpus in (table, query[0].facts["gpus"]):
        gpu_keys, proc_keys = _keys(gpus)
        assert gpu_keys <= GPU_FIELDS and proc_keys <= PROCESS_FIELDS
    (gpu,) = gpus_from_facts(table)
    assert gpu.name == "NVIDIA GeForce RTX 4090" and gpu.memory_total_bytes == 24564 * 2**20
    assert gpu.processes[0].pid == 4242 and gpu.compute_capability is None


def test_unreadable_values_become_none_not_errors() -> None:
    gpu = NvidiaGpu.from_facts(
        {"index": "x", "pcie_width": "N/A", "temperature_c": True, "processes": ["junk", {}]}
    )
    assert gpu.index is None and gpu.pcie_width is None and gpu.temperature_c is None
    assert gpu.processes == (GpuProcess(None),)
    assert (
        gpus_from_facts("not a list") == [] and gpus_from_facts([1, {"name": "A"}])[0].name == "A"
    )


def test_nvml_is_preferred_over_nvidia_smi_and_capabilities_read_the_typed_field() -> None:
    facts: Facts = {
        "nvml": Found({"gpus": [{"index": 0, "name": "A", "compute_capability": "9.0"}]}),
        "nvidia_smi": Found({"gpus": [{"index": 0, "name": "B"}, {"index": 1, "name": "C"}]}),
    }
    assert [g.name for g in nvidia_gpus(facts)] == ["A"]
    assert capabilities(facts) == ["9.0"]


def test_every_key_the_torch_child_writes_for_a_device_is_a_field() -> None:
    props = types.SimpleNamespace(
        name="AMD Instinct MI300X",
        major=9,
        minor=4,
        total_memory=192 * 2**30,
        gcnArchName="gfx942:sramecc+:xnack-",
    )
    cuda = types.SimpleNamespace(device_count=lambda: 1, get_device_properties=lambda i: props)
    raw = devices(types.SimpleNamespace(cuda=cuda))
    assert {k for d in raw for k in d} <= DEVICE_FIELDS
    (device,) = torch_devices_from_facts(raw)
    assert device == TorchDevice(
        0, "AMD Instinct MI300X", "9.4", None, 192 * 2**30, raw[0]["gcn_arch"]
    )


def test_pytorch_devices_give_the_capabilities_when_no_driver_lists_gpus() -> None:
    facts: Facts = {
        "torch": Found(
            {
                "torch": {
                    "devices": [{"name": "NVIDIA GeForce RTX 5090", "capability": "12.0"}, "junk"]
                }
            }
        )
    }
    assert [d.name for d in torch_devices(facts)] == ["NVIDIA GeForce RTX 5090"]
    assert capabilities(facts) == ["12.0"]
    assert torch_devices({}) == []
