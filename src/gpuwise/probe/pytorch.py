"""PyTorch as the user's Python sees it, probed in a child process.

Importing torch takes seconds and can crash (a broken CUDA library), so it never happens in
the doctor's own process: `python -c <_torch_child.py>` prints one JSON line, which this module
finds and decodes. The child's Python is the one the user points at (`--python`), by default
the one running gpuwise.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from gpuwise.parse.result import Failed, Found, Missing, ProbeResult
from gpuwise.probe.context import ProbeContext
from gpuwise.probe.run import CmdResult, run_cmd

MARKER = "GPUWISE_JSON:"


def child_source(name: str) -> str:
    """The text of a child script shipped in this package."""
    return resources.files("gpuwise.probe").joinpath(name).read_text(encoding="utf-8")


def parse_marker(stdout: str) -> dict[str, Any] | None:
    """The JSON object on the last `GPUWISE_JSON:` line, or None (missing or not JSON)."""
    for line in reversed(stdout.splitlines()):
        if line.startswith(MARKER):
            try:
                data = json.loads(line[len(MARKER) :])
            except json.JSONDecodeError:
                return None
            return data if isinstance(data, dict) else None
    return None


def run_child(ctx: ProbeContext, script: str, timeout_s: float) -> CmdResult:
    """Run a child script with the target Python (and this process's environment)."""
    return run_cmd([ctx.python, "-c", child_source(script)], timeout_s, ctx.env)


def child_failure(res: CmdResult, what: str) -> ProbeResult:
    """The typed failure for a child that did not print its JSON line."""
    if not res.found:
        return Missing("python_not_found", res.argv[0])
    if res.timed_out:
        return Failed("timeout", f"{what} did not finish")
    if res.error:
        return Failed("exec_error", res.error)
    tail = [ln for ln in res.stderr.splitlines() if ln.strip()]
    return Failed(
        "crashed" if res.rc else "garbage", (tail[-1] if tail else res.first_line())[:300]
    )


def probe_torch(ctx: ProbeContext) -> ProbeResult:
    """Version, CUDA/ROCm build, availability, devices, cuDNN/NCCL loaded, arch list, wheels."""
    res = run_child(ctx, "_torch_child.py", ctx.left(20.0))
    data = parse_marker(res.stdout) if res.found and not res.timed_out else None
    if data is None:
        return child_failure(res, "the PyTorch check")
    if data.get("torch") is None:
        error = str(data.get("import_error", ""))
        if error.startswith("ModuleNotFoundError") and "'torch'" in error:
            return Missing("not_installed", error, facts=data)
        return Failed("import_failed", error, facts=data)
    return Found(data)
