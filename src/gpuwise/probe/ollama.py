"""Ollama: its HTTP API (/api/version, /api/ps), and the environment it really runs with.

`/api/ps` lists loaded models with `size` (bytes the model occupies) and `size_vram` (bytes in
GPU memory): `size_vram == 0` is "100% CPU", `0 < size_vram < size` a CPU/GPU split. The server's
own environment is read from its process (/proc/<pid>/environ, when permitted) and from systemd
unit files, so that variables set there — real ones and made-up ones — can be checked too. A
malformed OLLAMA_HOST (port 99999, spaces, garbage) is reported as a typed failure, never raised.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from gpuwise import net
from gpuwise.parse.ollama import parse_ps, relevant
from gpuwise.parse.result import Failed, Found, Missing, ProbeResult
from gpuwise.probe.context import ProbeContext
from gpuwise.probe.run import which

DEFAULT_PORT = 11434
_UNIT_FILES = ("/etc/systemd/system/ollama.service", "/usr/lib/systemd/system/ollama.service")
_DROPIN_DIR = "/etc/systemd/system/ollama.service.d"
_ENV_LINE = re.compile(r"^\s*Environment\s*=\s*(.+)$")


_HOSTNAME = re.compile(r"^[A-Za-z0-9._-]+$|^[0-9A-Fa-f:.]+$")


class BadHost(ValueError):
    """OLLAMA_HOST cannot be read as host[:port] (what is wrong is the message)."""


def base_url(explicit: str | None, ollama_host: str | None) -> tuple[str, str]:
    """The URL to reach the server and where it came from ("option", "OLLAMA_HOST", "default").

    Follows Ollama's own reading of OLLAMA_HOST: no scheme means http and port 11434; a scheme
    without a port means 80 (http) or 443 (https); 0.0.0.0 listens everywhere, so connect to
    127.0.0.1. Raises BadHost for a value Ollama itself could not listen on.
    """
    if explicit:
        return explicit.rstrip("/"), "option"
    if not ollama_host or not ollama_host.strip():
        return f"http://127.0.0.1:{DEFAULT_PORT}", "default"
    raw = ollama_host.strip()
    has_scheme = "://" in raw
    try:
        parts = urlsplit(raw if has_scheme else f"http://{raw}")
    except ValueError as exc:  # "Invalid IPv6 URL"
        raise BadHost(str(exc)) from None
    scheme = parts.scheme or "http"
    if scheme not in ("http", "https"):
        raise BadHost(f"scheme {scheme!r}")
    try:
        explicit_port = parts.port
    except ValueError as exc:  # "Port out of range 0-65535", "Port could not be cast …"
        raise BadHost(str(exc)) from None
    if explicit_port == 0:
        raise BadHost("port 0")
    port = explicit_port or (DEFAULT_PORT if not has_scheme else (443 if scheme == "https" else 80))
    host = parts.hostname or "127.0.0.1"
    if not _HOSTNAME.match(host):
        raise BadHost(f"host {host!r}")
    if host in ("0.0.0.0", "::", ""):
        host = "127.0.0.1"
    host = f"[{host}]" if ":" in host else host
    return f"{scheme}://{host}:{port}", "OLLAMA_HOST"


def unit_environment(ctx: ProbeContext) -> dict[str, str]:
    """Environment= settings of the ollama systemd unit and its drop-ins."""
    files = [*_UNIT_FILES, *(f"{_DROPIN_DIR}/{n}" for n in ctx.glob(_DROPIN_DIR, "*.conf"))]
    env: dict[str, str] = {}
    for path in files:
        for line in (ctx.read(path) or "").splitlines():
            m = _ENV_LINE.match(line)
            if m:
                for item in re.findall(r'"([^"]*)"|(\S+)', m.group(1)):
                    key, _, value = (item[0] or item[1]).partition("=")
                    env[key] = value
    return env


def unit_exec_start(ctx: ProbeContext) -> str:
    """ExecStart= of the ollama unit (to spot flags `ollama serve` does not have)."""
    files = [*_UNIT_FILES, *(f"{_DROPIN_DIR}/{n}" for n in ctx.glob(_DROPIN_DIR, "*.conf"))]
    lines = [ln for p in files for ln in (ctx.read(p) or "").splitlines()]
    starts = [ln.split("=", 1)[1].strip() for ln in lines if ln.strip().startswith("ExecStart=")]
    return next((s for s in reversed(starts) if s), "")


def _nul_list(text: str | None) -> list[str]:
    return [p for p in (text or "").split("\0") if p]


def _parent(ctx: ProbeContext, pid: str) -> tuple[int | None, str]:
    """(ppid, parent's command name) from /proc/<pid>/stat and the parent's comm."""
    stat = ctx.read(f"/proc/{pid}/stat") or ""
    fields = stat.rsplit(")", 1)[-1].split()
    if len(fields) < 2 or not fields[1].isdigit():
        return None, ""
    ppid = int(fields[1])
    return ppid, (ctx.read(f"/proc/{ppid}/comm") or "").strip()


def server_process(ctx: ProbeContext) -> dict[str, Any]:
    """The running `ollama serve` process: pid, command line, who started it, its environment
    (None when this user may not read it). Read from /proc, so a faked tree works too."""
    for pid in ctx.listdir("/proc"):
        if not pid.isdigit() or not (ctx.read(f"/proc/{pid}/comm") or "").startswith("ollama"):
            continue
        cmd = _nul_list(ctx.read(f"/proc/{pid}/cmdline"))
        if "serve" not in cmd and "start" not in cmd:
            continue
        ppid, parent = _parent(ctx, pid)
        environ = ctx.read(f"/proc/{pid}/environ")
        env = None
        if environ is not None:
            pairs = (item.partition("=") for item in _nul_list(environ))
            env = {k: v for k, _, v in pairs if relevant(k)}
        return {"pid": int(pid), "cmdline": cmd[:20], "ppid": ppid, "parent": parent, "env": env}
    return {}


def probe_ollama(ctx: ProbeContext) -> ProbeResult:
    """Server version and loaded models over HTTP, plus every place its settings can come from."""
    facts: dict[str, Any] = {
        "url": "",
        "url_source": "",
        "binary": which("ollama", ctx.env),
        "shell_env": {k: v for k, v in ctx.env.items() if relevant(k)},
        "unit_env": {k: v for k, v in unit_environment(ctx).items() if relevant(k)},
        "unit_exec_start": unit_exec_start(ctx),
        "unit_file": any(ctx.exists(p) for p in _UNIT_FILES),
        "server": server_process(ctx),
    }
    try:
        url, origin = base_url(ctx.ollama_url, ctx.env.get("OLLAMA_HOST"))
    except BadHost as exc:
        facts["bad_host"] = {"value": ctx.env.get("OLLAMA_HOST", ""), "problem": str(exc)}
        return Failed("bad_host", str(exc)[:200], facts)
    facts.update(url=url, url_source=origin)
    timeout = ctx.left(2.5)
    try:
        version = net.get_json(f"{url}/api/version", timeout)
        facts["version"] = str(version.get("version", "")) if isinstance(version, dict) else ""
        facts["models"] = parse_ps(net.get_json(f"{url}/api/ps", timeout))
    except TimeoutError:
        return Failed("timeout", f"{url} did not answer", facts)
    except net.HTTPError as exc:
        return Failed("http_error", f"HTTP {exc.code} from {url}", facts)
    except net.URLError as exc:
        if isinstance(exc.reason, TimeoutError):
            return Failed("timeout", f"{url} did not answer", facts)
        return Missing("not_running", str(exc.reason)[:200], facts)
    except (ValueError, UnicodeError, net.HTTPException) as exc:
        return Failed("bad_reply", str(exc)[:200], facts)
    except OSError as exc:
        return Missing("not_running", str(exc)[:200], facts)
    return Found(facts)
