"""CUDA toolkits: every `nvcc` on PATH (the first one wins), CUDA_HOME, /usr/local/cuda-*.

Only compiling needs a toolkit (custom kernels, flash-attn from source); PyTorch wheels bring
their own CUDA runtime. Several different nvcc versions on PATH make builds pick one silently.
"""

from __future__ import annotations

import os
import re
from typing import Any

from gpuwise.parse.nvcc import parse_nvcc_version
from gpuwise.parse.result import Found, Missing, ProbeResult
from gpuwise.probe.context import ProbeContext
from gpuwise.probe.run import run_cmd, search_path


def nvcc_on_path(env: dict[str, str]) -> list[str]:
    """Every nvcc executable on PATH, in PATH order, one per real file.

    Empty and relative PATH entries (which POSIX reads as the current directory) are skipped,
    so an empty or unset PATH finds no nvcc.
    """
    out: list[str] = []
    seen: set[str] = set()
    path = search_path(env) if "PATH" in env else ""
    for folder in path.split(os.pathsep) if path else []:
        candidate = os.path.join(folder, "nvcc")
        if not os.access(candidate, os.X_OK) or os.path.isdir(candidate):
            continue
        real = os.path.realpath(candidate)
        if real not in seen:
            seen.add(real)
            out.append(candidate)
    return out


def probe_toolkit(ctx: ProbeContext) -> ProbeResult:
    """Versions of every nvcc on PATH, plus CUDA_HOME and installed /usr/local/cuda-X.Y trees."""
    nvccs: list[dict[str, Any]] = []
    for path in nvcc_on_path(ctx.env)[:6]:
        res = run_cmd([path, "--version"], ctx.left(3.0), ctx.env)
        nvccs.append(
            {
                "path": path,
                "version": parse_nvcc_version(res.stdout) if res.ok else "",
                "error": "" if res.ok else ("timeout" if res.timed_out else res.first_line()),
            }
        )
    installed = [d for d in ctx.glob("/usr/local", "cuda-*") if re.fullmatch(r"cuda-\d+\.\d+", d)]
    facts = {
        "nvcc": nvccs,
        "cuda_home": ctx.env.get("CUDA_HOME") or ctx.env.get("CUDA_PATH", ""),
        "installed": installed,
    }
    if not nvccs and not installed:
        return Missing("no_toolkit", facts=facts)
    if not nvccs:
        return Missing("not_on_path", facts=facts)  # installed, but no nvcc a build would find
    return Found(facts)
