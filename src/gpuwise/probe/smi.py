"""`nvidia-smi -q -x`: find the tool (PATH, or the WSL copy) and run it with a deadline; its XML
and error text are read by gpuwise.parse.nvidia_smi (shared with `doctor --from`)."""

from __future__ import annotations

from gpuwise.parse.nvidia_smi import classify_error, parse_nvidia_smi_xml
from gpuwise.parse.result import Failed, Found, Missing, ProbeResult
from gpuwise.probe.context import ProbeContext
from gpuwise.probe.run import run_cmd, which


def _binary(ctx: ProbeContext) -> str | None:
    """nvidia-smi on PATH, else the WSL copy (the Windows driver puts it outside PATH)."""
    found = which("nvidia-smi", ctx.env)
    if found:
        return found
    wsl = ctx.path("/usr/lib/wsl/lib/nvidia-smi")
    return str(wsl) if wsl.exists() else None


def probe_nvidia_smi(ctx: ProbeContext) -> ProbeResult:
    """Run `nvidia-smi -q -x` and parse it; errors become typed failures with a reason code."""
    exe = _binary(ctx)
    if exe is None:
        return Missing("not_installed")
    res = run_cmd([exe, "-q", "-x"], ctx.left(6.0), ctx.env)
    facts = {"binary": exe}
    if res.timed_out:
        return Failed("timeout", "nvidia-smi did not answer", facts)
    if res.error:
        return Failed("exec_error", res.error, facts)
    if res.rc != 0 or "<nvidia_smi_log" not in res.stdout:
        text = f"{res.stdout}\n{res.stderr}"
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()][:2]
        return Failed(classify_error(text), " / ".join(lines)[:300] or f"exit {res.rc}", facts)
    try:
        return Found({**facts, **parse_nvidia_smi_xml(res.stdout)})
    except ValueError as exc:
        return Failed("garbage", str(exc)[:200], facts)
