"""Operating system, distribution, package manager, Python environment, Apple silicon."""

from __future__ import annotations

import os
import platform
import sys
from typing import Any

from gpuwise.parse.os_release import package_manager, parse_os_release
from gpuwise.parse.result import Found, ProbeResult
from gpuwise.probe.context import ProbeContext
from gpuwise.probe.run import run_cmd, which


def probe_system(ctx: ProbeContext) -> ProbeResult:
    """OS, kernel, distribution, package manager, this Python, conda/venv, Apple memory."""
    system = platform.system()
    os_release = parse_os_release(ctx.read("/etc/os-release") or "")
    have = {pm: which(pm if pm != "apt" else "apt-get", ctx.env) is not None for pm in _PMS}
    facts: dict[str, Any] = {
        "os": system,
        "kernel": (ctx.read("/proc/sys/kernel/osrelease") or "").strip() or platform.release(),
        "machine": platform.machine(),
        "distro_id": os_release.get("ID", ""),
        "distro_version": os_release.get("VERSION_ID", ""),
        "distro_name": os_release.get("PRETTY_NAME", ""),
        "package_manager": package_manager(os_release, have),
        "python": platform.python_version(),
        "python_executable": ctx.python,
        "conda_prefix": ctx.env.get("CONDA_PREFIX", ""),
        "conda_env": ctx.env.get("CONDA_DEFAULT_ENV", ""),
        "virtual_env": ctx.env.get("VIRTUAL_ENV", ""),
        "in_venv": sys.prefix != getattr(sys, "base_prefix", sys.prefix),
        "user": ctx.env.get("USER") or ctx.env.get("USERNAME", ""),
        "is_root": _uid(ctx) == 0,
        "cuda_visible_devices": ctx.env.get("CUDA_VISIBLE_DEVICES"),
    }
    if system == "Darwin":
        facts.update(_apple(ctx))
    return Found(facts)


_PMS = ("apt", "dnf", "yum", "zypper", "pacman", "brew")


def _uid(ctx: ProbeContext) -> int | None:
    """This process's uid from /proc/self/status, else from the OS (None on Windows)."""
    for line in (ctx.read("/proc/self/status") or "").splitlines():
        if line.startswith("Uid:") and line.split()[1:2] and line.split()[1].isdigit():
            return int(line.split()[1])
    return os.geteuid() if hasattr(os, "geteuid") else None


def _apple(ctx: ProbeContext) -> dict[str, Any]:
    """Apple silicon: unified memory size (the GPU shares it) and the macOS version."""
    out: dict[str, Any] = {
        "apple_silicon": platform.machine() == "arm64",
        "macos": platform.mac_ver()[0],
    }
    res = run_cmd(["sysctl", "-n", "hw.memsize"], ctx.left(2.0), ctx.env)
    if res.ok and res.stdout.strip().isdigit():
        out["memory_bytes"] = int(res.stdout.strip())
    return out
