"""Ollama: its HTTP API (/api/version, /api/ps), and the environment it really runs with.

`/api/ps` lists loaded models with `size` (bytes the model occupies) and `size_vram` (bytes in
GPU memory): `size_vram == 0` is "100% CPU", `0 < size_vram < size` a CPU/GPU split. The server's
own environment is read from its process (when permitted) and from systemd unit files, so that
variables set there — real ones and made-up ones — can be checked too.
"""

from __future__ import annotations

import http.client
import json
import re
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from gpuwise.probe.context import ProbeContext
from gpuwise.probe.result import Failed, Found, Missing, ProbeResult
from gpuwise.probe.run import which

DEFAULT_PORT = 11434
_UNIT_FILES = ("/etc/systemd/system/ollama.service", "/usr/lib/systemd/system/ollama.service")
_DROPIN_DIR = "/etc/systemd/system/ollama.service.d"
_ENV_LINE = re.compile(r"^\s*Environment\s*=\s*(.+)$")


def base_url(explicit: str | None, ollama_host: str | None) -> tuple[str, str]:
    """The URL to reach the server and where it came from ("option", "OLLAMA_HOST", "default").

    Follows Ollama's own reading of OLLAMA_HOST: no scheme means http and port 11434; a scheme
    without a port means 80 (http) or 443 (https); 0.0.0.0 listens everywhere, so connect to
    127.0.0.1.
    """
    if explicit:
        return explicit.rstrip("/"), "option"
    if not ollama_host:
        return f"http://127.0.0.1:{DEFAULT_PORT}", "default"
    raw = ollama_host.strip()
    has_scheme = "://" in raw
    parts = urlsplit(raw if has_scheme else f"http://{raw}")
    scheme = parts.scheme or "http"
    port = parts.port or (DEFAULT_PORT if not has_scheme else (443 if scheme == "https" else 80))
    host = parts.hostname or "127.0.0.1"
    if host in ("0.0.0.0", "::", ""):
        host = "127.0.0.1"
    host = f"[{host}]" if ":" in host else host
    return f"{scheme}://{host}:{port}", "OLLAMA_HOST"


def get_json(url: str, timeout_s: float) -> Any:
    """GET a JSON document; raises OSError/ValueError subclasses on failure."""
    req = urllib.request.Request(url, headers={"Accept": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout_s) as resp:
        return json.loads(resp.read(4 * 1024 * 1024).decode("utf-8", errors="replace"))


def parse_ps(data: Any) -> list[dict[str, Any]]:
    """Loaded models with size, size_vram and the share on the CPU (ValueError if malformed)."""
    if not isinstance(data, dict) or not isinstance(data.get("models", []), list):
        raise ValueError("unexpected /api/ps reply")
    out = []
    for m in data.get("models") or []:
        if not isinstance(m, dict):
            raise ValueError("unexpected model entry")
        size = int(m.get("size") or 0)
        vram = int(m.get("size_vram") or 0)
        cpu = None if size <= 0 or vram > size else round(100 * (size - vram) / size)
        out.append(
            {
                "name": str(m.get("name") or m.get("model") or ""),
                "size_bytes": size,
                "size_vram_bytes": vram,
                "cpu_percent": cpu,
                "context_length": m.get("context_length"),
            }
        )
    return out


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


def server_process() -> dict[str, Any]:
    """The running `ollama serve` process: pid, command line, environment if readable."""
    try:
        import psutil
    except ImportError:
        return {}
    for proc in psutil.process_iter(["name", "cmdline"]):
        cmd = proc.info.get("cmdline") or []
        if (proc.info.get("name") or "").startswith("ollama") and "serve" in cmd:
            out: dict[str, Any] = {"pid": proc.pid, "cmdline": cmd[:20]}
            try:
                env = proc.environ()
                out["env"] = {k: v for k, v in env.items() if _relevant(k)}
            except (psutil.Error, OSError):
                out["env"] = None
            return out
    return {}


def _relevant(key: str) -> bool:
    return key.startswith(("OLLAMA_", "CUDA_", "HIP_", "ROCR_", "GGML_", "HSA_", "GPU_DEVICE"))


def probe_ollama(ctx: ProbeContext) -> ProbeResult:
    """Server version and loaded models over HTTP, plus every place its settings can come from."""
    url, origin = base_url(ctx.ollama_url, ctx.env.get("OLLAMA_HOST"))
    facts: dict[str, Any] = {
        "url": url,
        "url_source": origin,
        "binary": which("ollama", ctx.env),
        "shell_env": {k: v for k, v in ctx.env.items() if _relevant(k)},
        "unit_env": unit_environment(ctx),
        "unit_exec_start": unit_exec_start(ctx),
        "server": server_process(),
    }
    timeout = ctx.left(2.5)
    try:
        version = get_json(f"{url}/api/version", timeout)
        facts["version"] = str(version.get("version", "")) if isinstance(version, dict) else ""
        facts["models"] = parse_ps(get_json(f"{url}/api/ps", timeout))
    except TimeoutError:
        return Failed("timeout", f"{url} did not answer", facts)
    except urllib.error.HTTPError as exc:
        return Failed("http_error", f"HTTP {exc.code} from {url}", facts)
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, TimeoutError):
            return Failed("timeout", f"{url} did not answer", facts)
        return Missing("not_running", str(exc.reason)[:200], facts)
    except (ValueError, UnicodeError, http.client.HTTPException) as exc:
        return Failed("bad_reply", str(exc)[:200], facts)
    except OSError as exc:
        return Missing("not_running", str(exc)[:200], facts)
    return Found(facts)
