"""A fake NVML for the monitor tests: nvidia-ml-py's functions patched with recorded values.

Each fake GPU takes its values from a real `nvidia-smi -q -x` dump in tests/fixtures/nvidia-smi/
(see tests/fixtures/README.md): memory, utilisation, temperature, power and limit, SM and memory
clocks, PCIe throughput, throttle reasons and processes. A value that dump shows as N/A raises
NVMLError_NotSupported, as NVML does. Driver generations differ in which functions exist
(FunctionNotFound): before 530 there is only the old "ClocksThrottleReasons" name, and drivers
from the 418/515 era lack the _v3 process calls. The energy counter (not in the XML dumps) is
synthetic: it grows by the recorded power × elapsed time, like the real counter does.

Errors are pynvml's own classes, so the code under test sees exactly what it would see.
"""

from __future__ import annotations

import time
import types
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pynvml
import pytest

from gpuwise.parse.nvidia_smi import number, parse_gpu
from gpuwise.probe.nvml_lib import THROTTLE_BITS

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "nvidia-smi"
MIB = 1024 * 1024
NAME_TO_BIT = {v: k for k, v in THROTTLE_BITS.items()}


def _err(code: int) -> Exception:
    return pynvml.NVMLError(code)


def _num(gpu: ET.Element, path: str) -> float | None:
    node = gpu.find(path)
    return number(node.text) if node is not None and node.text else None


@dataclass
class FakeGpu:
    """One GPU's recorded values; None = not supported on this board/driver."""

    name: str
    uuid: str
    bus_id: str
    memory_total: int | None
    memory_used: int | None
    util_gpu: float | None
    util_mem: float | None
    temperature: float | None
    power_mw: float | None
    limit_mw: float | None
    sm_clock: float | None
    mem_clock: float | None
    pcie_tx_kib: float | None
    pcie_rx_kib: float | None
    throttle_mask: int
    processes: list[tuple[int, int | None, str]]
    process_names: dict[int, str] = field(default_factory=dict)
    energy_supported: bool = True
    nvlink_links: int = 0
    xids: list[int] = field(default_factory=list)


def gpu_from_xml(path: Path, index: int = 0) -> FakeGpu:
    """A FakeGpu from the index-th <gpu> of a recorded nvidia-smi XML dump."""
    root = ET.fromstring(path.read_text(encoding="utf-8"))
    node = root.findall("gpu")[index]
    facts = parse_gpu(node, index)
    power, limit = facts["power_w"], facts["power_limit_w"]
    mask = sum(NAME_TO_BIT.get(n, 0) for n in facts["throttle_active"])
    return FakeGpu(
        name=facts["name"],
        uuid=facts["uuid"],
        bus_id=facts["pci_bus_id"],
        memory_total=facts["memory_total_bytes"],
        memory_used=facts["memory_used_bytes"],
        util_gpu=_num(node, "utilization/gpu_util"),
        util_mem=_num(node, "utilization/memory_util"),
        temperature=facts["temperature_c"],
        power_mw=power * 1000 if power is not None else None,
        limit_mw=limit * 1000 if limit is not None else None,
        sm_clock=_num(node, "clocks/sm_clock"),
        mem_clock=_num(node, "clocks/mem_clock"),
        pcie_tx_kib=_num(node, "pci/tx_util"),
        pcie_rx_kib=_num(node, "pci/rx_util"),
        throttle_mask=mask,
        processes=[(p["pid"], p["used_memory_bytes"], p["type"]) for p in facts["processes"]],
        process_names={p["pid"]: p["name"] for p in facts["processes"]},
    )


@dataclass
class Generation:
    """A driver generation: its recorded dump and which NVML functions it lacks."""

    fixture: str
    driver: str
    missing: frozenset[str] = frozenset()
    energy: bool = True
    hide_processes: bool = False


OLD_PROCS = frozenset(
    {
        "nvmlDeviceGetComputeRunningProcesses_v3",
        "nvmlDeviceGetGraphicsRunningProcesses_v3",
    }
)
GENERATIONS = {
    "418": Generation(
        "gtx-1660-ti-418.43.xml",
        "418.43",
        OLD_PROCS
        | {
            "nvmlDeviceGetCurrentClocksEventReasons",
            "nvmlDeviceGetComputeRunningProcesses_v2",
            "nvmlDeviceGetGraphicsRunningProcesses_v2",
        },
    ),
    "515": Generation(
        "tesla-t4-515.105.01.xml",
        "515.105.01",
        OLD_PROCS | {"nvmlDeviceGetCurrentClocksEventReasons"},
    ),
    "525": Generation(
        "quadro-p2000-525.125.06.xml",
        "525.125.06",
        frozenset({"nvmlDeviceGetCurrentClocksEventReasons"}),
        energy=False,  # Pascal: the energy counter is Volta and later
    ),
    "535-mig": Generation("a100-sxm4-80gb-mig-535.54.03.xml", "535.54.03", hide_processes=True),
    "536": Generation("rtx-3080-windows-536.40.xml", "536.40"),
    "590": Generation("rtx-pro-6000-blackwell-590.44.01.xml", "590.44.01"),
}


class FakeNvml:
    """Holds the fake devices and patches pynvml's functions while a test runs."""

    def __init__(self, gpus: list[FakeGpu], missing: frozenset[str] = frozenset()) -> None:
        self.gpus = gpus
        self.missing = missing
        self.handles = [types.SimpleNamespace(index=i) for i in range(len(gpus))]
        self.start = time.monotonic()
        self.extra_processes: Callable[[int], list[tuple[int, int | None]]] | None = None
        self.calls: dict[str, int] = {}
        self.hide_processes = False
        self.xid_registered: set[int] = set()
        self.shutdowns = 0

    def gpu(self, handle: Any) -> FakeGpu:
        return self.gpus[handle.index]

    def functions(self) -> dict[str, Callable[..., Any]]:
        def value(attr: str, scale: float = 1.0) -> Callable[[Any], Any]:
            def read(h: Any) -> Any:
                v = getattr(self.gpu(h), attr)
                if v is None:
                    raise _err(pynvml.NVML_ERROR_NOT_SUPPORTED)
                return int(v * scale)

            return read

        return {
            "nvmlInit": lambda: None,
            "nvmlShutdown": self._shutdown,
            "nvmlDeviceGetCount": lambda: len(self.gpus),
            "nvmlDeviceGetHandleByIndex": lambda i: self.handles[i],
            "nvmlDeviceGetName": lambda h: self.gpu(h).name,
            "nvmlDeviceGetUUID": lambda h: self.gpu(h).uuid,
            "nvmlDeviceGetPciInfo": lambda h: types.SimpleNamespace(busId=self.gpu(h).bus_id),
            "nvmlDeviceGetMemoryInfo": self._memory,
            "nvmlDeviceGetUtilizationRates": self._util,
            "nvmlDeviceGetTemperature": lambda h, sensor: value("temperature")(h),
            "nvmlDeviceGetPowerUsage": value("power_mw"),
            "nvmlDeviceGetEnforcedPowerLimit": value("limit_mw"),
            "nvmlDeviceGetTotalEnergyConsumption": self._energy,
            "nvmlDeviceGetClockInfo": lambda h, clock: value(
                {1: "sm_clock", 2: "mem_clock"}.get(clock, "sm_clock")
            )(h),
            "nvmlDeviceGetCurrentClocksEventReasons": lambda h: self.gpu(h).throttle_mask,
            "nvmlDeviceGetCurrentClocksThrottleReasons": lambda h: self.gpu(h).throttle_mask,
            "nvmlDeviceGetPcieThroughput": lambda h, c: value(
                "pcie_tx_kib" if c == 0 else "pcie_rx_kib"
            )(h),
            "nvmlDeviceGetNvLinkState": self._nvlink_state,
            "nvmlDeviceGetFieldValues": self._fields,
            "nvmlEventSetCreate": lambda: types.SimpleNamespace(kind="event-set"),
            "nvmlDeviceRegisterEvents": self._register,
            "nvmlEventSetWait": self._wait,
            "nvmlEventSetFree": lambda s: None,
            "nvmlSystemGetProcessName": self._process_name,
            **{
                f"nvmlDevice{kind}RunningProcesses{suffix}": self._procs(kind)
                for kind in ("GetCompute", "GetGraphics")
                for suffix in ("", "_v2", "_v3")
            },
        }

    def install(self, monkeypatch: pytest.MonkeyPatch) -> FakeNvml:
        """Patch pynvml (functions this generation lacks raise FunctionNotFound)."""
        for name, fn in self.functions().items():
            if name in self.missing:
                fn = self._not_found
            monkeypatch.setattr(pynvml, name, self._counted(name, fn))
        return self

    def _counted(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            self.calls[name] = self.calls.get(name, 0) + 1
            return fn(*args)

        return call

    @staticmethod
    def _not_found(*_args: Any) -> Any:
        raise _err(pynvml.NVML_ERROR_FUNCTION_NOT_FOUND)

    def _shutdown(self) -> None:
        self.shutdowns += 1

    def _memory(self, h: Any) -> Any:
        g = self.gpu(h)
        if g.memory_total is None or g.memory_used is None:
            raise _err(pynvml.NVML_ERROR_NOT_SUPPORTED)
        return types.SimpleNamespace(
            total=g.memory_total, used=g.memory_used, free=g.memory_total - g.memory_used
        )

    def _util(self, h: Any) -> Any:
        g = self.gpu(h)
        if g.util_gpu is None or g.util_mem is None:
            raise _err(pynvml.NVML_ERROR_NOT_SUPPORTED)
        return types.SimpleNamespace(gpu=int(g.util_gpu), memory=int(g.util_mem))

    def _energy(self, h: Any) -> int:
        g = self.gpu(h)
        if not g.energy_supported or g.power_mw is None:
            raise _err(pynvml.NVML_ERROR_NOT_SUPPORTED)
        # mJ since "driver load": recorded power (mW) x seconds since the fake was made
        return int(1e9 + g.power_mw * (time.monotonic() - self.start))

    def _process_name(self, pid: int) -> str:
        for g in self.gpus:
            if pid in g.process_names:
                return g.process_names[pid]
        raise _err(pynvml.NVML_ERROR_NOT_FOUND)

    def _nvlink_state(self, h: Any, link: int) -> int:
        if link >= self.gpu(h).nvlink_links:
            raise _err(pynvml.NVML_ERROR_NOT_SUPPORTED)
        return 1

    def _fields(self, h: Any, ids: list[tuple[int, int]]) -> list[Any]:
        elapsed = time.monotonic() - self.start
        return [
            types.SimpleNamespace(
                fieldId=f, nvmlReturn=0, value=types.SimpleNamespace(ullVal=int(1000 * elapsed))
            )
            for f, _link in ids
        ]

    def _register(self, h: Any, types_mask: int, event_set: Any) -> None:
        self.xid_registered.add(h.index)

    def _wait(self, event_set: Any, timeout_ms: int) -> Any:
        for h in self.handles:
            g = self.gpu(h)
            if g.xids:
                return types.SimpleNamespace(device=h, eventData=g.xids.pop(0), eventType=8)
        raise _err(pynvml.NVML_ERROR_TIMEOUT)

    def _procs(self, kind: str) -> Callable[[Any], list[Any]]:
        def listing(h: Any) -> list[Any]:
            if self.hide_processes:
                raise _err(pynvml.NVML_ERROR_NO_PERMISSION)
            g = self.gpu(h)
            wanted = "C" if kind == "GetCompute" else "G"
            out = [
                types.SimpleNamespace(pid=pid, usedGpuMemory=used)
                for pid, used, ptype in g.processes
                if wanted in ptype
            ]
            if self.extra_processes is not None and kind == "GetCompute":
                out += [
                    types.SimpleNamespace(pid=pid, usedGpuMemory=used)
                    for pid, used in self.extra_processes(h.index)
                ]
            return out

        return listing


def fake_generation(key: str, monkeypatch: pytest.MonkeyPatch) -> FakeNvml:
    """The fake NVML of one driver generation, installed."""
    gen = GENERATIONS[key]
    gpu = gpu_from_xml(FIXTURES / gen.fixture)
    gpu.energy_supported = gen.energy
    fake = FakeNvml([gpu], gen.missing)
    fake.hide_processes = gen.hide_processes
    return fake.install(monkeypatch)
