"""Versions the audit compares with published fixes: the NVIDIA Container Toolkit (`nvidia-ctk
--version`, else `nvidia-container-cli --version`) and the GPU driver (/proc/driver/nvidia/version,
else `nvidia-smi`)."""

from __future__ import annotations

import re
from typing import Any

from gpuwise.parse.result import Found, Missing, ProbeResult
from gpuwise.probe.context import ProbeContext
from gpuwise.probe.kernel import parse_nvidia_proc_version
from gpuwise.probe.run import run_cmd, which

_VERSION = re.compile(r"version:?\s+v?(\d+\.\d+\.\d+)", re.IGNORECASE)


def parse_toolkit_version(text: str) -> str:
    """The version in "… CLI version 1.17.3" (nvidia-ctk) or "cli-version: 1.17.3"."""
    m = _VERSION.search(text)
    return m.group(1) if m else ""


def probe_versions(ctx: ProbeContext, timeout_s: float) -> ProbeResult:
    """Toolkit and driver versions (each absent when not installed)."""
    facts: dict[str, Any] = {"toolkit": _toolkit(ctx, timeout_s), "driver": _driver(ctx, timeout_s)}
    if not facts["toolkit"] and not facts["driver"]:
        return Missing("no_nvidia_software")
    return Found(facts)


def _toolkit(ctx: ProbeContext, timeout_s: float) -> dict[str, str]:
    for tool in ("nvidia-ctk", "nvidia-container-cli"):
        if which(tool, ctx.env) is None:
            continue
        res = run_cmd([tool, "--version"], ctx.left(timeout_s), ctx.env)
        version = parse_toolkit_version(res.stdout) if res.ok else ""
        if version:
            return {"version": version, "via": tool}
    return {}


def _driver(ctx: ProbeContext, timeout_s: float) -> dict[str, str]:
    version = parse_nvidia_proc_version(ctx.read("/proc/driver/nvidia/version") or "")
    if version:
        return {"version": version, "via": "/proc/driver/nvidia/version"}
    if which("nvidia-smi", ctx.env) is None:
        return {}
    res = run_cmd(
        ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
        ctx.left(timeout_s),
        ctx.env,
    )
    line = res.stdout.strip().splitlines()[0].strip() if res.ok and res.stdout.strip() else ""
    if re.fullmatch(r"\d+\.\d+(\.\d+)?", line):
        return {"version": line, "via": "nvidia-smi"}
    return {}
