"""Listening TCP sockets (psutil) and a credential-free question to each known service on
loopback: does it answer without a key, token or password?

Only GET requests with no side effects (and Redis's PING) are sent, never credentials, and only
to loopback addresses. As a normal user the processes behind other users' sockets are hidden
(psutil gives no PID without root); the facts count them so the report can say so.
"""

from __future__ import annotations

import socket
from collections.abc import Sequence
from typing import Any

import psutil

from gpuwise import net
from gpuwise.catalog.schema_audit import AuthProbe
from gpuwise.parse.result import Failed, Found, ProbeResult

_BODY_LIMIT = 64 * 1024  # bytes of a reply read to look for `body_contains`
_CMDLINE_LIMIT = 300  # characters of a command line kept (for identification only, never shown)


def probe_listeners() -> ProbeResult:
    """Every listening TCP socket: address, port, PID, process name (command line kept only to
    identify the service; it is never reported, it may hold keys)."""
    try:
        conns = psutil.net_connections("tcp")
    except (psutil.AccessDenied, OSError) as exc:
        return Failed("sockets_denied", str(exc))
    seen: set[tuple[str, int]] = set()
    names: dict[int, tuple[str | None, str]] = {}
    out: list[dict[str, Any]] = []
    for c in conns:
        if c.status != psutil.CONN_LISTEN or not c.laddr:
            continue
        ip, port = str(c.laddr[0]), int(c.laddr[1])
        if (ip, port) in seen:
            continue
        seen.add((ip, port))
        pid = c.pid
        process, cmdline = (None, "")
        if pid:
            if pid not in names:
                names[pid] = _process(pid)
            process, cmdline = names[pid]
        out.append({"ip": ip, "port": port, "pid": pid, "process": process, "cmdline": cmdline})
    hidden = sum(1 for item in out if not item["pid"])
    return Found({"listeners": out, "pids_hidden": hidden})


def processes_named(prefixes: Sequence[str]) -> list[dict[str, Any]]:
    """Running processes whose name starts with one of `prefixes` (pid, name)."""
    if not prefixes:
        return []
    out: list[dict[str, Any]] = []
    for proc in psutil.process_iter(["name"]):
        name = str(proc.info.get("name") or "")
        if name.startswith(tuple(prefixes)):
            out.append({"pid": proc.pid, "name": name})
    return out


def _process(pid: int) -> tuple[str | None, str]:
    try:
        proc = psutil.Process(pid)
        name = proc.name()
    except (psutil.Error, OSError):
        return None, ""
    try:
        cmdline = " ".join(proc.cmdline())[:_CMDLINE_LIMIT]
    except (psutil.Error, OSError):
        cmdline = ""
    return name, cmdline


def check_auth(host: str, port: int, auth: AuthProbe, timeout_s: float) -> tuple[str, str]:
    """("open" | "auth" | "unknown", what was seen) for one service on loopback."""
    if auth.kind == "none":
        return "open", "no authentication by design"
    if auth.kind == "redis":
        return _redis(host, port, timeout_s)
    status, body, error = http_get(host, port, auth.path, timeout_s)
    if status is None:
        return "unknown", error
    if status in auth.auth_status:
        return "auth", f"HTTP {status}"
    if status in auth.open_status and (not auth.body_contains or auth.body_contains in body):
        return "open", f"HTTP {status}"
    return "unknown", f"HTTP {status}"


def http_get(host: str, port: int, path: str, timeout_s: float) -> tuple[int | None, str, str]:
    """(status, start of the body, error) of a plain GET; never raises."""
    headers = {"User-Agent": "gpuwise-audit", "Accept": "*/*"}
    return net.plain_get(host, port, path, timeout_s, headers, _BODY_LIMIT)


def _redis(host: str, port: int, timeout_s: float) -> tuple[str, str]:
    """Redis inline PING: +PONG without a password, -NOAUTH when one is required."""
    try:
        with socket.create_connection((host, port), timeout=timeout_s) as sock:
            sock.settimeout(timeout_s)
            sock.sendall(b"PING\r\n")
            reply = sock.recv(256).decode("utf-8", errors="replace").strip()
    except OSError as exc:
        return "unknown", type(exc).__name__
    if reply.startswith("+PONG"):
        return "open", "PONG"
    if reply.startswith(("-NOAUTH", "-WRONGPASS")):
        return "auth", reply.split(" ", 1)[0]
    return "unknown", reply[:40]
