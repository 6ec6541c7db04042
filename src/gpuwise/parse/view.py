"""Read-only views over probe results (live from probe/, or pasted into `doctor --from`) that
the doctor's rules and `setup` share.

`Facts` maps probe name → result. These helpers answer the common questions ("which NVIDIA
GPUs?", "which driver?", "is this WSL?") once, preferring NVML over nvidia-smi where both
report the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpuwise.parse.gpu_facts import (
    NvidiaGpu,
    TorchDevice,
    gpus_from_facts,
    torch_devices_from_facts,
)
from gpuwise.parse.result import Found, ProbeResult, facts_of

Facts = dict[str, ProbeResult]


def get(facts: Facts, name: str) -> ProbeResult | None:
    """The result of probe `name`, or None when it did not run."""
    return facts.get(name)


def found(facts: Facts, name: str) -> dict[str, Any]:
    """The facts of probe `name` when it found something, else {}."""
    return facts_of(facts.get(name))


def any_facts(facts: Facts, name: str) -> dict[str, Any]:
    """Facts of probe `name` whatever its status (failures may carry partial facts)."""
    result = facts.get(name)
    return result.facts if result is not None else {}


@dataclass(frozen=True)
class Host:
    """Where we are: OS, package manager, WSL, container, cloud, the Python to fix.

    `place` decides where a fix must run: inside a container the driver is the host's, under
    WSL 2 it is the Windows driver, on a cloud VM the provider's image may bring its own.
    """

    os: str
    package_manager: str
    distro: str
    wsl: int
    in_container: bool
    python: str
    cloud: str = ""

    @property
    def windows(self) -> bool:
        """Native Windows (not WSL)."""
        return self.os == "Windows"

    @property
    def place(self) -> str:
        """container | wsl2 | wsl1 | windows | native | unknown (nothing said about the OS)."""
        if self.in_container:
            return "container"
        if self.wsl:
            return f"wsl{self.wsl}"
        if self.windows:
            return "windows"
        return "native" if self.os else "unknown"


def cloud_of(dmi: dict[str, Any], rules: tuple[Any, ...]) -> str:
    """The cloud whose DMI strings match (catalog rules: field contains text), else ""."""
    for rule in rules:
        text = str(dmi.get(rule.field, ""))
        if rule.contains.lower() in text.lower():
            return str(rule.cloud)
    return ""


def host(facts: Facts, cloud_rules: tuple[Any, ...] = ()) -> Host:
    """The host description used to tailor fix commands."""
    system = found(facts, "system")
    wsl = found(facts, "wsl")
    torch_py = any_facts(facts, "torch").get("python", {})
    return Host(
        os=str(system.get("os", "")),
        package_manager=str(system.get("package_manager", "")),
        distro=str(system.get("distro_id", "")),
        wsl=int(wsl.get("version", 0) or 0),
        in_container=bool(found(facts, "container").get("in_container")),
        python=str(torch_py.get("executable") or system.get("python_executable") or "python"),
        cloud=cloud_of(found(facts, "kernel").get("dmi") or {}, cloud_rules),
    )


def nvidia_gpus(facts: Facts) -> list[NvidiaGpu]:
    """NVIDIA GPUs from NVML, else from nvidia-smi (same keys), typed for the rules."""
    nvml = found(facts, "nvml").get("gpus") or []
    smi = found(facts, "nvidia_smi").get("gpus") or []
    return gpus_from_facts(nvml or smi)


def driver_version(facts: Facts) -> str:
    """The NVIDIA driver version (NVML, nvidia-smi, PyTorch's report, then the kernel module)."""
    for name in ("nvml", "nvidia_smi"):
        v = found(facts, name).get("driver_version")
        if v:
            return str(v)
    reported = any_facts(facts, "torch").get("driver_version")
    if reported:
        return str(reported)
    return str(
        found(facts, "kernel").get("nvidia_module_version")
        or found(facts, "kmsg").get("module_version")
        or ""
    )


def driver_max_cuda(facts: Facts) -> str:
    """Highest CUDA version the installed driver supports ("CUDA Version" of nvidia-smi, or
    what PyTorch reported as "found version 11040")."""
    for name in ("nvml", "nvidia_smi"):
        v = found(facts, name).get("cuda_version")
        if v:
            return str(v)
    t = any_facts(facts, "torch")
    raw = t.get("torch")
    inner: dict[str, Any] = raw if isinstance(raw, dict) else {}
    return str(t.get("driver_max_cuda") or inner.get("driver_max_cuda") or "")


def pci_vendor_count(facts: Facts, vendor: str) -> int:
    """How many GPUs/accelerators of `vendor` are on the PCI bus."""
    return sum(1 for d in found(facts, "kernel").get("pci_gpus") or [] if d.get("vendor") == vendor)


def nvidia_present(facts: Facts) -> bool:
    """Any sign of an NVIDIA GPU: on the PCI bus, through the driver, as a WSL device, in the
    kernel log, or named by PyTorch."""
    wsl = found(facts, "wsl")
    kmsg = found(facts, "kmsg")
    return bool(
        nvidia_gpus(facts)
        or pci_vendor_count(facts, "nvidia")
        or (wsl.get("dxg") and wsl.get("wsl_libcuda"))
        or kmsg.get("legacy")
        or kmsg.get("xids")
        or any_facts(facts, "torch").get("gpu_names")
        or driver_version(facts)
    )


def torch_info(facts: Facts) -> dict[str, Any]:
    """The `torch` part of the PyTorch probe ({} when not installed or not probed)."""
    t = found(facts, "torch").get("torch")
    return t if isinstance(t, dict) else {}


def torch_devices(facts: Facts) -> list[TorchDevice]:
    """The GPUs PyTorch reported, typed ([] when PyTorch is not installed or saw none)."""
    return torch_devices_from_facts(torch_info(facts).get("devices"))


def capabilities(facts: Facts) -> list[str]:
    """Compute capabilities of the NVIDIA GPUs (NVML, else what PyTorch reported)."""
    ccs = [g.compute_capability for g in nvidia_gpus(facts) if g.compute_capability]
    if not ccs:
        ccs = [d.capability for d in torch_devices(facts) if d.capability]
    return ccs


def is_found(facts: Facts, name: str) -> bool:
    """Whether probe `name` found something."""
    return isinstance(facts.get(name), Found)
