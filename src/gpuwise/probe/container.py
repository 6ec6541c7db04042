"""Containers: are we inside one (Docker, Podman, Kubernetes), and can this host's Docker give
containers a GPU (NVIDIA Container Toolkit: nvidia-ctk, the nvidia runtime, CDI specs)?"""

from __future__ import annotations

import json
import re
from typing import Any

from gpuwise.parse.result import Found, ProbeResult
from gpuwise.probe.context import ProbeContext
from gpuwise.probe.run import run_cmd, which

_CGROUP_HINT = re.compile(r"docker|kubepods|containerd|libpod|lxc", re.IGNORECASE)


def inside(ctx: ProbeContext) -> dict[str, Any]:
    """Signals that this process runs in a container, and what GPU it was given."""
    runtime = ""
    if ctx.exists("/.dockerenv"):
        runtime = "docker"
    elif ctx.exists("/run/.containerenv"):
        runtime = "podman"
    elif _CGROUP_HINT.search(ctx.read("/proc/1/cgroup") or ""):
        runtime = "container"
    return {
        "in_container": bool(runtime) or "KUBERNETES_SERVICE_HOST" in ctx.env,
        "runtime": runtime,
        "kubernetes": "KUBERNETES_SERVICE_HOST" in ctx.env,
        "nvidia_visible_devices": ctx.env.get("NVIDIA_VISIBLE_DEVICES"),
        "nvidia_driver_capabilities": ctx.env.get("NVIDIA_DRIVER_CAPABILITIES"),
    }


def parse_docker_info(text: str) -> dict[str, Any]:
    """`docker info --format '{{json .}}'`: daemon reachable?, runtimes, default runtime, CDI."""
    try:
        data = json.loads(text.strip().splitlines()[-1]) if text.strip() else {}
    except (json.JSONDecodeError, IndexError):
        return {"daemon": False, "error": "unreadable docker info"}
    if not isinstance(data, dict):
        return {"daemon": False, "error": "unreadable docker info"}
    errors = data.get("ServerErrors") or []
    if errors or not data.get("ServerVersion"):
        return {"daemon": False, "error": str(errors[0]) if errors else ""}
    runtimes = data.get("Runtimes") or {}
    return {
        "daemon": True,
        "server_version": str(data.get("ServerVersion", "")),
        "runtimes": sorted(runtimes) if isinstance(runtimes, dict) else [],
        "default_runtime": str(data.get("DefaultRuntime", "")),
        "cdi_spec_dirs": list(data.get("CDISpecDirs") or []),
        "cgroup_driver": str(data.get("CgroupDriver", "")),
    }


def _docker(ctx: ProbeContext) -> dict[str, Any]:
    if which("docker", ctx.env) is None:
        return {"installed": False}
    res = run_cmd(["docker", "info", "--format", "{{json .}}"], ctx.left(4.0), ctx.env)
    if res.timed_out:
        return {"installed": True, "daemon": False, "error": "timeout"}
    info = parse_docker_info(res.stdout)
    if not info.get("daemon") and not info.get("error"):
        info["error"] = res.first_line()
    return {"installed": True, **info}


def _toolkit(ctx: ProbeContext) -> dict[str, Any]:
    out: dict[str, Any] = {
        "nvidia_ctk": which("nvidia-ctk", ctx.env),
        "nvidia_container_runtime": which("nvidia-container-runtime", ctx.env),
        "nvidia_container_cli": which("nvidia-container-cli", ctx.env),
        "cdi_specs": [
            f"{d}/{n}"
            for d in ("/etc/cdi", "/var/run/cdi")
            for n in ctx.glob(d, "*")
            if n.endswith((".yaml", ".yml", ".json"))
        ],
    }
    if out["nvidia_ctk"]:
        res = run_cmd(["nvidia-ctk", "--version"], ctx.left(3.0), ctx.env)
        m = re.search(r"version\s+(\d+\.\d+\.\d+)", res.stdout)
        out["nvidia_ctk_version"] = m.group(1) if m else ""
    return out


def probe_container(ctx: ProbeContext) -> ProbeResult:
    """Inside-a-container signals plus this host's Docker and NVIDIA Container Toolkit."""
    return Found({**inside(ctx), "docker": _docker(ctx), "toolkit": _toolkit(ctx)})
