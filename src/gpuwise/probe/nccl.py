"""NCCL: variables left set (environment and /etc/nccl.conf), and the `--nccl` smoke test.

The smoke test runs `_nccl_child.py` with the user's Python from a temporary file (the
processes torch.multiprocessing spawns must be able to import their entry point, which a
`python -c` script cannot offer).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Any

from gpuwise.parse.result import Failed, Found, Missing, ProbeResult
from gpuwise.probe.context import ProbeContext
from gpuwise.probe.pytorch import child_failure, child_source, parse_marker
from gpuwise.probe.run import run_cmd

_PREFIXES = ("NCCL_", "TORCH_NCCL_", "TORCH_DISTRIBUTED_")


def parse_conf(text: str) -> dict[str, str]:
    """KEY=value lines of an nccl.conf file (comments and blanks skipped)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        key, sep, value = line.partition("=")
        if sep and key.strip():
            out[key.strip()] = value.strip()
    return out


def probe_nccl_env(ctx: ProbeContext) -> ProbeResult:
    """NCCL/torch.distributed variables in the environment and in the NCCL config files."""
    conf_paths = ["/etc/nccl.conf"]
    if ctx.env.get("NCCL_CONF_FILE"):
        conf_paths.append(ctx.env["NCCL_CONF_FILE"])
    files: dict[str, dict[str, str]] = {}
    for path in conf_paths:
        text = ctx.read(path)
        if text is not None:
            files[path] = parse_conf(text)
    home_conf = ctx.home / ".nccl.conf"
    with contextlib.suppress(OSError):
        files[str(home_conf)] = parse_conf(home_conf.read_text(errors="replace"))
    env = {k: v for k, v in ctx.env.items() if k.startswith(_PREFIXES)}
    return Found({"env": env, "files": files})


def smoke_env(ctx: ProbeContext, timeout_s: float) -> dict[str, str]:
    """Environment of the smoke-test child: the user's, plus its own settings."""
    env = dict(ctx.env)
    env.setdefault("GPUWISE_NCCL_PG_TIMEOUT_S", str(max(5, int(timeout_s * 0.8))))
    env.setdefault("NCCL_DEBUG", "WARN")  # NCCL then prints why it failed
    return env


def probe_nccl_smoke(ctx: ProbeContext) -> ProbeResult:
    """An all-reduce over every local GPU (NCCL) or two CPU processes (gloo)."""
    timeout_s = ctx.left(120.0)
    folder = tempfile.mkdtemp(prefix="gpuwise-")
    script = Path(folder) / "gpuwise_nccl_check.py"
    try:
        script.write_text(child_source("_nccl_child.py"), encoding="utf-8")
        res = run_cmd([ctx.python, str(script)], timeout_s, smoke_env(ctx, timeout_s))
    except OSError as exc:
        return Failed("exec_error", str(exc))
    finally:
        _cleanup(script)
    data = parse_marker(res.stdout) if res.found and not res.timed_out else None
    if data is None:
        return child_failure(res, "the NCCL test")
    if data.get("torch") is None:
        return Missing("torch_missing", str(data.get("error", "")), facts=data)
    facts: dict[str, Any] = {**data, "stderr_tail": _tail(res.stderr)}
    if not data.get("ok"):
        return Failed("collective_failed", str(data.get("error", ""))[-500:], facts)
    return Found(facts)


def _tail(text: str, lines: int = 15) -> list[str]:
    return [ln[:300] for ln in text.splitlines() if ln.strip()][-lines:]


def _cleanup(script: Path) -> None:
    try:
        script.unlink()
        os.rmdir(script.parent)
    except OSError:
        pass
