"""Facts for rule tests: a plain Ubuntu machine without a GPU, plus whatever a test overrides.

Probe results are built the way the probes build them; NVIDIA facts come from the recorded
nvidia-smi outputs in tests/fixtures (parsed by the real parser).
"""

from __future__ import annotations

from typing import Any

from gpuwise.catalog import load_catalog
from gpuwise.catalog.compat import CompatTables
from gpuwise.doctor.engine import diagnose
from gpuwise.doctor.inputs import Inputs
from gpuwise.doctor.model import Finding
from gpuwise.doctor.view import Facts
from gpuwise.probe.result import Found, Missing, ProbeResult

__all__ = ["Found", "Missing"]
from gpuwise.probe.smi import parse_nvidia_smi_xml
from tests.probe.support import FIXTURES

PY = {"version": "3.12.3", "executable": "/home/u/venv/bin/python", "venv": True, "conda": False}


def system(**over: Any) -> Found:
    facts = {
        "os": "Linux",
        "kernel": "6.8.0-45-generic",
        "distro_id": "ubuntu",
        "distro_name": "Ubuntu 24.04 LTS",
        "package_manager": "apt",
        "python": "3.12.3",
        "python_executable": PY["executable"],
        "cuda_visible_devices": None,
    }
    return Found({**facts, **over})


def kernel(**over: Any) -> Found:
    facts: dict[str, Any] = {
        "modules": [],
        "nvidia_module_version": "",
        "pci_gpus": [],
        "devices": {
            "nvidia": [],
            "dxg": False,
            "kfd": False,
            "kfd_rw": False,
            "dri_render": [],
            "davinci": [],
        },
        "secure_boot": None,
        "shm_bytes": 64 * 1024**3,
        "groups": ["users"],
    }
    return Found({**facts, **over})


def nvidia_pci(n: int = 1) -> list[dict[str, str]]:
    return [
        {
            "vendor": "nvidia",
            "device_id": "0x2684",
            "class": "0x030000",
            "address": f"0000:0{i}:00.0",
        }
        for i in range(n)
    ]


def smi(fixture: str) -> Found:
    text = (FIXTURES / "nvidia-smi" / fixture).read_text()
    return Found({"binary": "/usr/bin/nvidia-smi", **parse_nvidia_smi_xml(text)})


def nvml(driver: str, cuda: str, gpus: list[dict[str, Any]]) -> Found:
    return Found({"driver_version": driver, "cuda_version": cuda, "gpus": gpus})


def gpu(name: str = "NVIDIA GeForce RTX 4090", cc: str = "8.9", **over: Any) -> dict[str, Any]:
    g: dict[str, Any] = {
        "index": 0,
        "name": name,
        "compute_capability": cc,
        "memory_total_bytes": 24 * 1024**3,
        "memory_used_bytes": 1 * 1024**3,
        "processes": [],
        "throttle_active": [],
    }
    return {**g, **over}


def torch(**over: Any) -> Found:
    t = {
        "version": "2.7.1+cu128",
        "cuda": "12.8",
        "hip": None,
        "is_available": True,
        "devices": [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "capability": "8.9"}],
        "arch_list": ["sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"],
        "cudnn": 90701,
        "nccl": "2.26.2",
    }
    return Found({"python": PY, "packages": {"torch": "2.7.1"}, "torch": {**t, **over}})


def no_torch() -> Missing:
    return Missing(
        "not_installed",
        "ModuleNotFoundError: No module named 'torch'",
        facts={"python": PY, "packages": {}},
    )


def ollama(result: str = "missing", **facts: Any) -> ProbeResult:
    base: dict[str, Any] = {
        "url": "http://127.0.0.1:11434",
        "url_source": "default",
        "binary": None,
        "shell_env": {},
        "unit_env": {},
        "unit_exec_start": "",
        "server": {},
    }
    base.update(facts)
    if result == "found":
        return Found(base)
    return Missing("not_running", "Connection refused", base)


def machine(**over: ProbeResult) -> Facts:
    """An Ubuntu machine with no GPU, no PyTorch, no Ollama; `over` replaces probe results."""
    facts: Facts = {
        "system": system(),
        "kernel": kernel(),
        "wsl": Missing("not_wsl"),
        "container": Found({"in_container": False, "docker": {"installed": False}, "toolkit": {}}),
        "nvidia_smi": Missing("not_installed"),
        "nvml": Missing("library_not_found"),
        "toolkit": Missing("no_toolkit"),
        "torch": no_torch(),
        "amd": Missing("not_present"),
        "intel": Missing("not_present"),
        "ascend": Missing("not_present"),
        "ollama": ollama(),
        "nccl_env": Found({"env": {}, "files": {}}),
    }
    facts.update(over)
    return facts


_TABLES: list[CompatTables] = []


def tables() -> CompatTables:
    """The real sourced tables from the built-in catalog (loaded once)."""
    if not _TABLES:
        _TABLES.append(
            CompatTables.from_catalog(load_catalog(use_overrides=False, use_cache=False))
        )
    return _TABLES[0]


def run(facts: Facts, nccl: bool = False) -> list[Finding]:
    return diagnose(Inputs(facts, tables(), nccl_requested=nccl))


def ids(findings: list[Finding]) -> list[str]:
    return [f.id for f in findings]


def by_id(findings: list[Finding], fid: str) -> Finding:
    return next(f for f in findings if f.id == fid)
