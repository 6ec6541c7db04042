"""Run every rule over the facts; a rule that breaks becomes a finding, not a traceback."""

from __future__ import annotations

from gpuwise.doctor import (
    rules_arch,
    rules_general,
    rules_nccl,
    rules_nvidia,
    rules_ollama,
    rules_platform,
    rules_runtime,
    rules_torch,
)
from gpuwise.doctor.inputs import Inputs, Rule
from gpuwise.doctor.model import Finding, sort_findings
from gpuwise.doctor.verdict import consistent

RULES: tuple[Rule, ...] = (
    *rules_general.RULES,
    *rules_nvidia.RULES,
    *rules_platform.RULES,
    *rules_arch.RULES,
    *rules_torch.RULES,
    *rules_runtime.RULES,
    *rules_ollama.RULES,
    *rules_nccl.RULES,
)
FINDING_IDS: tuple[str, ...] = (
    *rules_general.IDS,
    *rules_nvidia.IDS,
    *rules_platform.IDS,
    *rules_arch.IDS,
    *rules_torch.IDS,
    *rules_runtime.IDS,
    *rules_ollama.IDS,
    *rules_nccl.IDS,
    "rule.crashed",
)
# A finding on the left makes the ones on the right redundant (it already says why).
_EXPLAINS = {
    "torch.cuda_unavailable": (
        "torch.driver_too_old",
        "torch.gpu_too_new",
        "torch.gpu_too_old",
        "nvidia.",
        "wsl.",
        "container.gpu_not_passed",
        "container.nvml_lost",
        "env.gpus_hidden",
        "torch.lib_shadowed",
    ),
    "torch.rocm_unavailable": ("amd.no_access", "torch.rocm_gfx"),
    "torch.no_kernel_image": ("torch.gpu_too_new", "torch.gpu_too_old"),
    "ollama.no_gpu_discovered": (
        "ollama.driver_too_old",
        "ollama.amd_unsupported",
        "container.gpu_not_passed",
        "nvidia.",
    ),
}


def _explained(f: Finding, findings: list[Finding]) -> bool:
    causes = _EXPLAINS.get(f.id, ())
    return any(
        other.level == "error" or other.id == "env.gpus_hidden"
        for other in findings
        if other is not f and any(other.id.startswith(c) for c in causes)
    )


def diagnose(inp: Inputs) -> list[Finding]:
    """All findings, most severe first."""
    findings: list[Finding] = []
    for rule in RULES:
        try:
            findings.extend(rule(inp))
        except Exception as exc:  # a rule bug must not hide the other findings
            detail = f"{rule.__name__}: {type(exc).__name__}: {exc}"[:300]
            findings.append(Finding("rule.crashed", "warn", {"detail": detail}))
    findings = [f for f in findings if not _explained(f, findings)]
    return sort_findings(consistent(findings))
