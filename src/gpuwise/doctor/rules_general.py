"""Findings about the run itself and the machine as a whole: probes that hung or broke, no GPU
at all, GPUs hidden by CUDA_VISIBLE_DEVICES."""

from __future__ import annotations

from gpuwise.doctor.inputs import Inputs
from gpuwise.doctor.model import Finding
from gpuwise.parse.result import Failed, TimedOut
from gpuwise.parse.view import found, nvidia_present

# Probes whose trouble other rules already explain in their own terms.
_EXPLAINED = {"nvidia_smi", "nvml", "torch", "ollama", "nccl_smoke", "amd", "ascend", "intel"}
# What the user knows each probe as: the tool it runs, not gpuwise's internal probe name.
TOOL_NAMES = {
    "nvidia_smi": "nvidia-smi",
    "nvml": "NVML (nvidia-ml-py)",
    "amd": "rocm-smi / amd-smi",
    "intel": "sycl-ls / xpu-smi",
    "ascend": "npu-smi",
    "toolkit": "nvcc",
    "container": "docker",
    "kmsg": "dmesg",
    "torch": "python (PyTorch)",
    "nccl_smoke": "NCCL all-reduce",
    "nccl_env": "NCCL settings",
    "ollama": "Ollama",
    "kernel": "/proc, /sys",
    "system": "os-release",
    "wsl": "WSL",
}


def tool_name(probe: str) -> str:
    """The name a user recognises for a probe."""
    return TOOL_NAMES.get(probe, probe)


def probe_health(inp: Inputs) -> list[Finding]:
    """A probe that timed out or crashed (and no other rule speaks for it)."""
    out = []
    for name, r in inp.facts.items():
        tool = tool_name(name)
        if isinstance(r, TimedOut) and name not in ("torch", "nccl_smoke", "nvidia_smi"):
            out.append(Finding("probe.timeout", "warn", {"probe": tool, "seconds": r.seconds}))
        elif isinstance(r, Failed) and r.reason == "crashed" and name not in _EXPLAINED:
            out.append(Finding("probe.crashed", "warn", {"probe": tool, "detail": r.detail}))
        elif isinstance(r, Failed) and name in ("amd", "ascend", "intel") and r.reason != "dcmi":
            out.append(
                Finding(
                    "probe.tool_failed", "warn", {"probe": tool, "detail": r.detail or r.reason}
                )
            )
    return out


def no_gpu(inp: Inputs) -> list[Finding]:
    """Say plainly when this machine has no GPU or accelerator at all.

    Never for a pasted report (absent facts are unknown there) nor under WSL 1 (which hides
    every GPU: wsl.version1 explains it).
    """
    if inp.pasted or found(inp.facts, "wsl").get("version") == 1:
        return []
    k = found(inp.facts, "kernel")
    if nvidia_present(inp.facts) or k.get("pci_gpus"):
        return []
    devices = k.get("devices") or {}
    if devices.get("kfd") or devices.get("davinci") or found(inp.facts, "amd").get("cards"):
        return []
    if found(inp.facts, "ascend").get("npus") or found(inp.facts, "intel").get("gpus"):
        return []
    if found(inp.facts, "system").get("apple_silicon"):
        return []
    return [Finding("gpu.none", "info", {"os": found(inp.facts, "system").get("os", "?")})]


def visible_devices(inp: Inputs) -> list[Finding]:
    """CUDA_VISIBLE_DEVICES set to hide every GPU ("-1" or empty) in this shell."""
    value = found(inp.facts, "system").get("cuda_visible_devices")
    if value is None:
        return []
    if value.strip() in ("", "-1") and nvidia_present(inp.facts):
        return [
            Finding("env.gpus_hidden", "warn", {"value": value}, ("unset CUDA_VISIBLE_DEVICES",))
        ]
    return [Finding("env.cuda_visible_devices", "info", {"value": value})]


RULES = (probe_health, no_gpu, visible_devices)
IDS = (
    "probe.timeout",
    "probe.crashed",
    "probe.tool_failed",
    "gpu.none",
    "env.gpus_hidden",
    "env.cuda_visible_devices",
)
