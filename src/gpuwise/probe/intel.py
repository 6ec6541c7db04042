"""Intel GPUs: xpu-smi and sycl-ls (oneAPI Level Zero devices), /dev/dri render nodes."""

from __future__ import annotations

from typing import Any

from gpuwise.parse.result import Failed, Found, Missing, ProbeResult
from gpuwise.probe.context import ProbeContext
from gpuwise.probe.run import run_cmd, which


def parse_sycl_ls(text: str) -> list[str]:
    """The GPU lines of `sycl-ls` ("[level_zero:gpu][level_zero:0] … Arc(TM) A770 …")."""
    return [line.strip() for line in text.splitlines() if ":gpu]" in line][:16]


def probe_intel(ctx: ProbeContext) -> ProbeResult:
    """oneAPI tools and the GPUs they list; Missing when no Intel tool is installed."""
    sycl = which("sycl-ls", ctx.env)
    xpu = which("xpu-smi", ctx.env)
    if not sycl and not xpu:
        return Missing("not_present")
    facts: dict[str, Any] = {"sycl_ls": sycl, "xpu_smi": xpu, "gpus": []}
    if sycl:
        res = run_cmd(["sycl-ls"], ctx.left(6.0), ctx.env)
        if res.timed_out:
            return Failed("timeout", "sycl-ls did not answer", facts)
        facts["gpus"] = parse_sycl_ls(res.stdout)
        if not res.ok:
            return Failed("error", res.first_line(), facts)
    if xpu:
        res = run_cmd(["xpu-smi", "discovery"], ctx.left(6.0), ctx.env)
        facts["xpu_smi_ok"] = res.ok
        facts["xpu_smi_detail"] = "" if res.ok else res.first_line()
    return Found(facts)
