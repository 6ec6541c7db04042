"""Docker as the audit sees it: running containers (`docker ps` then `docker inspect`), members
of the docker group (/etc/group), and the daemon's `hosts` (/etc/docker/daemon.json, and `-H` /
`--host` on the ExecStart lines of its systemd unit and drop-ins).

Talking to the daemon needs root or the docker group; without either the containers are
reported as not checked (the group, daemon.json and the unit are still read).
"""

from __future__ import annotations

import json
import re
from typing import Any

from gpuwise.parse.result import Failed, Found, Missing, ProbeResult
from gpuwise.probe.context import ProbeContext
from gpuwise.probe.run import run_cmd, which

SOCKET_PATHS = ("/var/run/docker.sock", "/run/docker.sock")
_MAX_CONTAINERS = 200
UNIT_FILES = ("/lib/systemd/system/docker.service", "/usr/lib/systemd/system/docker.service",
              "/etc/systemd/system/docker.service")  # fmt: skip
DROPIN_DIR = "/etc/systemd/system/docker.service.d"
_HOST_FLAG = re.compile(r"(?:-H|--host)(?:=|\s+)(\S+)")


def probe_docker(ctx: ProbeContext, timeout_s: float) -> ProbeResult:
    """Containers, group members and daemon hosts; Missing when docker is not installed."""
    facts: dict[str, Any] = {
        "partial": True,  # until the containers are listed too
        "group_members": group_members(ctx.read("/etc/group") or ""),
        "daemon_config": _daemon(ctx),
        "containers": [],
    }
    if which("docker", ctx.env) is None:
        return Missing("docker_missing", facts=facts)
    ps = run_cmd(["docker", "ps", "-q", "--no-trunc"], ctx.left(timeout_s), ctx.env)
    if not ps.ok:
        reason = "docker_timeout" if ps.timed_out else "docker_unreachable"
        return Failed(reason, ps.first_line(), facts=facts)
    ids = ps.stdout.split()[:_MAX_CONTAINERS]
    if ids:
        res = run_cmd(["docker", "inspect", *ids], ctx.left(timeout_s), ctx.env)
        if not res.ok:
            return Failed("docker_inspect_failed", res.first_line(), facts=facts)
        try:
            data = json.loads(res.stdout)
        except json.JSONDecodeError:
            return Failed("docker_inspect_unreadable", res.stdout[:80], facts=facts)
        facts["containers"] = [parse_container(c) for c in data if isinstance(c, dict)]
    return Found({**facts, "partial": False})


def parse_container(c: dict[str, Any]) -> dict[str, Any]:
    """The security-relevant parts of one `docker inspect` object (Docker Engine API)."""
    host = c.get("HostConfig") or {}
    config = c.get("Config") or {}
    mounts = [str(m.get("Source", "")) for m in c.get("Mounts") or [] if isinstance(m, dict)]
    binds = [str(b).split(":", 1)[0] for b in host.get("Binds") or []]
    published = [
        {"ip": str(b.get("HostIp", "")), "port": str(b.get("HostPort", "")), "container": key}
        for key, bindings in (host.get("PortBindings") or {}).items()
        for b in bindings or []
        if isinstance(b, dict)
    ]
    return {
        "id": str(c.get("Id", ""))[:12],
        "name": str(c.get("Name", "")).lstrip("/"),
        "image": str(config.get("Image", "")),
        "user": str(config.get("User", "")),
        "privileged": bool(host.get("Privileged")),
        "cap_add": list(host.get("CapAdd") or []),
        "network_mode": str(host.get("NetworkMode", "")),
        "docker_sock": any(p in SOCKET_PATHS for p in mounts + binds),
        "published": published,
    }


def _daemon(ctx: ProbeContext) -> dict[str, Any]:
    """daemon.json's hosts plus the unit's -H hosts; TLS when either turns it on."""
    config = daemon_config(ctx.read("/etc/docker/daemon.json") or "")
    units = [*UNIT_FILES, *(f"{DROPIN_DIR}/{n}" for n in ctx.glob(DROPIN_DIR, "*.conf"))]
    for path in units:
        hosts, tls = unit_hosts(ctx.read(path) or "")
        config.setdefault("hosts", []).extend(hosts)
        config["tlsverify"] = bool(config.get("tlsverify")) or tls
    return config


def unit_hosts(text: str) -> tuple[list[str], bool]:
    """`-H`/`--host` values on ExecStart lines of a systemd unit, and whether --tlsverify is set."""
    hosts: list[str] = []
    tls = False
    for line in text.splitlines():
        if line.strip().startswith("ExecStart="):
            hosts.extend(_HOST_FLAG.findall(line))
            tls = tls or "--tlsverify" in line
    return hosts, tls


def group_members(text: str) -> list[str]:
    """Members of the `docker` group from /etc/group lines `name:x:gid:user1,user2`."""
    for line in text.splitlines():
        parts = line.strip().split(":")
        if len(parts) >= 4 and parts[0] == "docker":
            return [m for m in parts[3].split(",") if m]
    return []


def daemon_config(text: str) -> dict[str, Any]:
    """`hosts` and `tlsverify` of /etc/docker/daemon.json (empty when absent or unreadable)."""
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError:
        return {"error": "unreadable"}
    if not isinstance(data, dict):
        return {}
    hosts = data.get("hosts") or []
    return {
        "hosts": [str(h) for h in hosts] if isinstance(hosts, list) else [],
        "tlsverify": bool(data.get("tlsverify")),
    }
