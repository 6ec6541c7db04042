"""One component, one verdict.

Every finding belongs to the component it is about — the component whose state it judges, not
the rule that produced it: "driver too old for Ollama" and "driver too old for this PyTorch
build" are verdicts on the NVIDIA driver. An "all clear" for a component that also has a
warning or an error would contradict it, so it is dropped; the summary row of a component shows
its worst finding.
"""

from __future__ import annotations

from gpuwise.doctor.model import LEVEL_ORDER, Finding

# Findings judged as verdicts on another component than their prefix says.
_COMPONENT_OF_ID = {
    "container.gpu_not_passed": "nvidia",
    "container.nvml_lost": "nvidia",
    "torch.driver_too_old": "nvidia",
    "torch.driver_minor_compat": "nvidia",
    "ollama.driver_too_old": "nvidia",
    "cuda.nvcc_newer_than_driver": "nvidia",
    "ollama.amd_unsupported": "ollama",
    # the GPU's own health, not the driver's: a narrow link does not make the driver wrong
    "nvidia.pcie_narrow": "gpu",
    "nvidia.throttle_thermal": "gpu",
    "nvidia.throttle_power": "gpu",
    "nvidia.ecc_uncorrected": "gpu",
    "nvidia.ecc_history": "gpu",
    "nvidia.memory_held": "gpu",
    "nvidia.mig": "gpu",
    "nvidia.xid": "gpu",
    "torch.rocm_gfx_override": "torch",
    "torch.rocm_gfx_unsupported": "torch",
    "gpu.none": "system",
    "apple.silicon": "system",
}
# Findings that also break a second component: Ollama or PyTorch cannot use a GPU whose driver
# is below their minimum, so neither may be called OK next to it.
_ALSO_BREAKS = {
    "ollama.driver_too_old": ("ollama",),
    "torch.driver_too_old": ("torch",),
    "nvidia.driver_predates_gpu": ("torch", "ollama"),
    "container.gpu_not_passed": ("container",),
}
_COMPONENT_OF_PREFIX = {
    "nvidia": "nvidia",
    "wsl": "wsl",
    "container": "container",
    "docker": "docker",
    "cuda": "toolkit",
    "torch": "torch",
    "amd": "amd",
    "intel": "intel",
    "ascend": "ascend",
    "ollama": "ollama",
    "nccl": "nccl",
    "env": "env",
    "probe": "probe",
    "rule": "probe",
}
# Summary rows (by probe / label) → the components whose findings they show.
ROW_COMPONENTS = {
    "system": ("system",),
    "wsl": ("wsl",),
    "container": ("container", "docker"),
    "nvidia_smi": ("nvidia", "gpu"),
    "toolkit": ("toolkit",),
    "torch": ("torch",),
    "amd": ("amd",),
    "intel": ("intel",),
    "ascend": ("ascend",),
    "ollama": ("ollama",),
    "nccl_env": ("nccl",),
}


def component(finding_id: str) -> str:
    """The component a finding judges."""
    if finding_id in _COMPONENT_OF_ID:
        return _COMPONENT_OF_ID[finding_id]
    return _COMPONENT_OF_PREFIX.get(finding_id.split(".", 1)[0], "other")


def components(finding_id: str) -> tuple[str, ...]:
    """The component a finding judges, then any other component it leaves unusable."""
    return (component(finding_id), *_ALSO_BREAKS.get(finding_id, ()))


def consistent(findings: list[Finding]) -> list[Finding]:
    """Drop every "ok" finding of a component that also has a warning or an error."""
    troubled = {c for f in findings if f.level in ("warn", "error") for c in components(f.id)}
    return [f for f in findings if not (f.level == "ok" and component(f.id) in troubled)]


def worst(levels: list[str]) -> str | None:
    """The most severe of some finding levels (None for none)."""
    return min(levels, key=lambda lv: LEVEL_ORDER[lv]) if levels else None


def row_verdict(probe: str, findings: list[dict[str, str]]) -> str | None:
    """The worst level among the findings of a summary row's components (None when none)."""
    comps = ROW_COMPONENTS.get(probe, ())
    return worst([f["level"] for f in findings if set(components(f["id"])) & set(comps)])
