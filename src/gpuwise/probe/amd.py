"""AMD GPUs: rocm-smi (JSON) and amd-smi, ROCm version, /dev/kfd and group membership.

`rocm-smi --json` prints one object per card ("card0", …) with string values, plus "system"
(driver version). Key spellings changed across ROCm releases ("Card series" / "Card Series").
"""

from __future__ import annotations

from typing import Any

from gpuwise.parse.result import Failed, Found, Missing, ProbeResult
from gpuwise.parse.rocm_smi import parse_rocm_smi_json
from gpuwise.probe.context import ProbeContext
from gpuwise.probe.run import run_cmd, which

ROCM_SMI_ARGS = ["--showproductname", "--showmeminfo", "vram", "--showdriverversion", "--json"]


def probe_amd(ctx: ProbeContext) -> ProbeResult:
    """rocm-smi cards, amd-smi presence; Missing when no AMD tool and no /dev/kfd."""
    rocm_smi = which("rocm-smi", ctx.env)
    amd_smi = which("amd-smi", ctx.env)
    facts: dict[str, Any] = {
        "rocm_smi": rocm_smi,
        "amd_smi": amd_smi,
        "kfd": ctx.exists("/dev/kfd"),
        "hsa_override": ctx.env.get("HSA_OVERRIDE_GFX_VERSION", ""),
    }
    if not rocm_smi and not amd_smi and not facts["kfd"]:
        return Missing("not_present")
    if amd_smi:
        res = run_cmd(["amd-smi", "version"], ctx.left(4.0), ctx.env)
        facts["amd_smi_version"] = res.first_line() if res.ok else ""
    if not rocm_smi:
        return Found(facts)
    res = run_cmd(["rocm-smi", *ROCM_SMI_ARGS], ctx.left(6.0), ctx.env)
    if res.timed_out:
        return Failed("timeout", "rocm-smi did not answer", facts)
    try:
        return Found({**facts, **parse_rocm_smi_json(res.stdout)})
    except ValueError as exc:
        return Failed("garbage" if res.rc == 0 else "error", res.first_line() or str(exc), facts)
