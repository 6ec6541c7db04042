"""Ollama: is it running, does it run models on the GPU (and if not, why), and are any of the
guide's made-up settings in place.

The guide's §6.5/§7 advice is wrong in two ways this module corrects when it sees them used:
`OLLAMA_CUDA=1` does not exist (GPU use is automatic) and `ollama serve --log-level debug` does
not exist (`serve` takes no flags; the switch is `OLLAMA_DEBUG=1`). `OLLAMA_NUM_GPU` is not an
environment variable either: `num_gpu` is a per-request/Modelfile option.
"""

from __future__ import annotations

from typing import Any

from gpuwise.catalog.versions import at_least, parse
from gpuwise.doctor import fixes
from gpuwise.doctor.inputs import Inputs
from gpuwise.doctor.model import Finding, Level
from gpuwise.doctor.policy import GIB, OLLAMA_CPU_WARN_PERCENT
from gpuwise.i18n import t
from gpuwise.parse.result import Failed, Found, Missing
from gpuwise.parse.view import (
    any_facts,
    capabilities,
    driver_version,
    found,
    nvidia_gpus,
    nvidia_present,
)

_MYTHS = {"OLLAMA_CUDA": "ollama.myth_ollama_cuda", "OLLAMA_NUM_GPU": "ollama.myth_num_gpu"}


def _envs(o: dict[str, Any]) -> dict[str, dict[str, str]]:
    """Where settings can come from: the shell, the systemd unit, the running server."""
    server_env = (o.get("server") or {}).get("env")
    out = {"shell": o.get("shell_env") or {}, "systemd": o.get("unit_env") or {}}
    if isinstance(server_env, dict):
        out["server"] = server_env
    return out


def myths(inp: Inputs) -> list[Finding]:
    """Made-up variables and flags from the guide, wherever they are set."""
    o = any_facts(inp.facts, "ollama")
    if not o:
        return []
    h = inp.host
    out = []
    envs = _envs(o)
    for var, key in _MYTHS.items():
        where = [src for src, env in envs.items() if var in env]
        if where:
            params = {"var": var, "where": ", ".join(where)}
            out.append(Finding(key, "warn", params, fixes.service_unset(h, var)))
    cmdline = " ".join((o.get("server") or {}).get("cmdline") or [])
    exec_start = o.get("unit_exec_start") or ""
    if "--log-level" in cmdline or "--log-level" in exec_start:
        cmds = (
            fixes.comment("remove_flag", flag="--log-level"),
            *fixes.service_env(h, "OLLAMA_DEBUG=1"),
        )
        out.append(
            Finding("ollama.myth_log_level", "error", {"where": exec_start or cmdline}, cmds)
        )
    return out


def server(inp: Inputs) -> list[Finding]:
    """Reachable? Which version? Models on the GPU or the CPU, and why."""
    r = inp.facts.get("ollama")
    o = any_facts(inp.facts, "ollama")
    if isinstance(r, Failed) and r.reason == "bad_host":
        return [_bad_host(inp, o)]
    if isinstance(r, Missing):
        if o.get("binary") or o.get("unit_env") or o.get("shell_env"):
            return [
                Finding("ollama.not_running", "info", {"url": o.get("url", "")}, ("ollama serve",))
            ]
        return []
    if isinstance(r, Failed):
        params = {"url": o.get("url", ""), "detail": r.detail}
        return [
            Finding(
                "ollama.unreachable", "warn", params, (f"curl -s {o.get('url', '')}/api/version",)
            )
        ]
    if not isinstance(r, Found):
        return []
    out = _host_port(o)
    log = o.get("log") or {}
    if log.get("no_gpu"):
        reasons = why_cpu(inp, {"size_bytes": 0, "size_vram_bytes": 0})
        why = " ".join(t(f"doctor.ollama_why.{k}", **p) for k, p in reasons)
        params = {"version": o.get("version") or "?", "why": why}
        return [*out, Finding("ollama.no_gpu_discovered", "warn", params, _log_commands(inp))]
    models = o.get("models") or []
    slow = [m for m in models if (m.get("cpu_percent") or 0) >= OLLAMA_CPU_WARN_PERCENT]
    for m in slow:
        out.append(_cpu_finding(inp, m))
    if not slow and "models" in o:  # a pasted log alone does not show what is loaded
        names = ", ".join(m.get("name", "") for m in models) or "—"
        out.append(Finding("ollama.ok", "ok", {"version": o.get("version", "?"), "models": names}))
    return out


def _bad_host(inp: Inputs, o: dict[str, Any]) -> Finding:
    """OLLAMA_HOST that Ollama itself cannot listen on or be reached at (port 99999, garbage)."""
    bad = o.get("bad_host") or {}
    params = {"value": bad.get("value", ""), "problem": bad.get("problem", "")}
    cmds: tuple[str, ...] = ("export OLLAMA_HOST=127.0.0.1:11434", fixes.comment("host_format"))
    if "OLLAMA_HOST" in (o.get("unit_env") or {}):
        cmds = (*cmds, *fixes.service_env(inp.host, "OLLAMA_HOST=127.0.0.1:11434"))
    return Finding("ollama.bad_host", "error", params, cmds)


def _host_port(o: dict[str, Any]) -> list[Finding]:
    raw = (o.get("shell_env") or {}).get("OLLAMA_HOST", "")
    if "://" in raw and parse(raw.rsplit(":", 1)[-1]) is None:
        return [Finding("ollama.host_port", "info", {"value": raw, "url": o.get("url", "")})]
    return []


def _cpu_finding(inp: Inputs, m: dict[str, Any]) -> Finding:
    reasons = why_cpu(inp, m)
    params = {
        "model": m.get("name", ""),
        "cpu": m.get("cpu_percent"),
        "size_gib": round((m.get("size_bytes") or 0) / GIB, 1),
        "vram_gib": round((m.get("size_vram_bytes") or 0) / GIB, 1),
        "why": " ".join(t(f"doctor.ollama_why.{k}", **p) for k, p in reasons),
    }
    key = "ollama.cpu_only" if m.get("cpu_percent") == 100 else "ollama.partial_offload"
    return Finding(key, "warn", params, _log_commands(inp))


def _log_commands(inp: Inputs) -> tuple[str, ...]:
    h = inp.host
    if h.in_container:
        return (
            "ollama ps",
            fixes.comment("docker_logs"),
            "docker logs <ollama-container> 2>&1 | grep -iE 'gpu|cuda|rocm|offload' | tail -n 30",
        )
    if h.os == "Linux":
        return (
            "ollama ps",
            "journalctl -u ollama --no-pager | grep -iE 'gpu|cuda|rocm|offload' | tail -n 30",
            *fixes.service_env(h, "OLLAMA_DEBUG=1"),
        )
    return ("ollama ps", "OLLAMA_DEBUG=1 ollama serve")


def why_cpu(inp: Inputs, m: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Likely causes of CPU execution, most decisive first (keys of doctor.ollama_why.*)."""
    o = any_facts(inp.facts, "ollama")
    envs = _envs(o)
    env = envs.get("server") or {**envs["shell"], **envs["systemd"]}
    out: list[tuple[str, dict[str, Any]]] = []
    log = o.get("log") or {}
    for item in log.get("amd_unsupported") or []:
        out.append(("amd_unsupported", {"gfx": item.get("gfx", "?")}))
    if log.get("driver_too_old"):
        out.append(("driver_log", {}))
    if env.get("CUDA_VISIBLE_DEVICES") in ("-1", ""):
        out.append(("gpus_hidden", {"value": env.get("CUDA_VISIBLE_DEVICES")}))
    in_container = found(inp.facts, "container").get("in_container") and not nvidia_gpus(inp.facts)
    if in_container:
        out.append(("container", {}))
    if (
        not nvidia_present(inp.facts)
        and not found(inp.facts, "amd").get("cards")
        and not found(inp.facts, "system").get("apple_silicon")
    ):
        if not inp.pasted and not out:
            out.append(("no_gpu", {}))
        return out or [("unknown", {})]
    out += _driver_reasons(inp)
    free = _free_vram(inp)
    if free is not None:
        free += int(m.get("size_vram_bytes") or 0)  # what this model already holds is usable
    if free is not None and (m.get("size_bytes") or 0) > free:
        out.append(
            (
                "too_big",
                {"size_gib": round(m["size_bytes"] / GIB, 1), "free_gib": round(free / GIB, 1)},
            )
        )
    return out or [("unknown", {})]


def _driver_reasons(inp: Inputs) -> list[tuple[str, dict[str, Any]]]:
    req = inp.tables.ollama_requirement("nvidia")
    driver = driver_version(inp.facts)
    if not nvidia_gpus(inp.facts):
        return [("driver_problem", {})] if nvidia_present(inp.facts) else []
    if req is None or not driver:
        return []
    out: list[tuple[str, dict[str, Any]]] = []
    for cc in capabilities(inp.facts):
        if req.min_compute_capability and at_least(cc, req.min_compute_capability) is False:
            out.append(("gpu_too_old", {"cc": cc, "need": req.min_compute_capability}))
            continue
        legacy = req.legacy_max_compute_capability and at_least(
            req.legacy_max_compute_capability, cc
        )
        need = req.legacy_min_driver if legacy and req.legacy_min_driver else req.min_driver
        if at_least(driver, need) is False:
            out.append(("driver_too_old", {"driver": driver, "need": need, "cc": cc}))
    return out[:1]


def _free_vram(inp: Inputs) -> int | None:
    gpus = nvidia_gpus(inp.facts)
    pairs = [(g.memory_total_bytes, g.memory_used_bytes) for g in gpus]
    if not pairs or any(a is None or b is None for a, b in pairs):
        return None
    return sum(a - b for a, b in pairs if a is not None and b is not None)


_GPU_VARS = ("HSA_", "ROCR_", "HIP_", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL")


def env_applied(inp: Inputs) -> list[Finding]:
    """Settings written for Ollama that the running server does not have.

    The systemd unit's Environment= only reaches a server systemd started; `ollama serve` typed
    in a shell has the shell's environment instead (and the reverse: an `export` in .bashrc never
    reaches the service). The running server's own environment settles which one applies.
    """
    o = any_facts(inp.facts, "ollama")
    srv = o.get("server") or {}
    running = srv.get("env")
    if not isinstance(running, dict):
        return _not_applied_per_log(inp, o)
    by_hand = (
        bool(srv.get("ppid")) and srv.get("ppid") != 1 and srv.get("parent") not in ("systemd", "")
    )
    out = []
    for src, env in (("systemd", o.get("unit_env") or {}), ("shell", o.get("shell_env") or {})):
        if src == "shell" and by_hand:
            continue  # a server started from this shell has what this shell exports
        for var, value in sorted(env.items()):
            if var == "OLLAMA_HOST" or running.get(var) == value:
                continue
            if src == "shell" and not var.startswith(("OLLAMA_", "HSA_OVERRIDE_GFX_VERSION")):
                continue  # a device mask in a shell is usually meant for that shell's jobs
            params = {"var": var, "value": value, "where": src, "running": running.get(var, "—")}
            out.append(_not_applied(inp, params, by_hand))
    return out[:3]


def _not_applied_per_log(inp: Inputs, o: dict[str, Any]) -> list[Finding]:
    """The server's environment is not known, but its log shows an override missing: a gfx
    target was refused although the unit sets HSA_OVERRIDE_GFX_VERSION (with the override
    Ollama skips that check), so the running server did not get the unit's settings."""
    log = o.get("log") or {}
    unit = o.get("unit_env") or {}
    value = unit.get("HSA_OVERRIDE_GFX_VERSION")
    if not value or not log.get("amd_unsupported"):
        return []
    params = {"var": "HSA_OVERRIDE_GFX_VERSION", "value": value, "where": "systemd", "running": "—"}
    return [_not_applied(inp, params, by_hand=True)]


def _not_applied(inp: Inputs, params: dict[str, Any], by_hand: bool) -> Finding:
    h = inp.host
    gpu = str(params["var"]).startswith(_GPU_VARS)
    level: Level = "error" if gpu and params["where"] == "systemd" else "warn"
    if params["where"] == "systemd" and by_hand:
        cmds: tuple[str, ...] = (
            fixes.comment("stop_manual_server"),
            "sudo systemctl restart ollama",
            "journalctl -u ollama --no-pager | grep -i 'server config' | tail -n 1",
        )
        return Finding("ollama.env_not_applied", level, params, cmds)
    assignment = f"{params['var']}={params['value']}"
    return Finding("ollama.env_not_applied", level, params, fixes.service_env(h, assignment))


def requirements(inp: Inputs) -> list[Finding]:
    """This GPU and driver against what Ollama requires (its hardware-support page)."""
    o = any_facts(inp.facts, "ollama")
    if not (
        o.get("binary") or o.get("unit_file") or o.get("server") or o.get("version") or o.get("log")
    ):
        return []
    log = o.get("log") or {}
    req = inp.tables.ollama_requirement("nvidia")
    driver = driver_version(inp.facts)
    out: list[Finding] = []
    if req is not None and driver:
        for key, p in _driver_reasons(inp):
            if key == "driver_too_old":
                cmds = fixes.driver_install(inp.host, need=str(p["need"]))
                out.append(Finding("ollama.driver_too_old", "error", {**p, "seen": "driver"}, cmds))
                break
    if not out and log.get("driver_too_old"):
        need = req.min_driver if req is not None else "?"
        if req is not None and req.legacy_min_driver and not capabilities(inp.facts):
            # the GPU is unknown: older GPUs need the higher minimum
            need = (
                f"{need} ({req.legacy_min_driver} for compute capability "
                f"≤ {req.legacy_max_compute_capability})"
            )
        params = {"driver": driver or "?", "need": need, "cc": "?", "seen": "log"}
        out.append(
            Finding(
                "ollama.driver_too_old",
                "error",
                params,
                fixes.driver_install(inp.host, need=str(need)),
            )
        )
    out += _amd_unsupported(inp, log)
    return out


def _amd_unsupported(inp: Inputs, log: dict[str, Any]) -> list[Finding]:
    """Ollama's ROCm build has no code for this gfx target ("amdgpu is not supported")."""
    items = log.get("amd_unsupported") or []
    req = inp.tables.ollama_requirement("amd")
    if not items and req is not None and req.gfx_targets:
        cards = found(inp.facts, "amd").get("cards") or []
        items = [
            {"gfx": str(c["gfx"]).split(":")[0], "supported": list(req.gfx_targets)}
            for c in cards
            if c.get("gfx") and str(c["gfx"]).split(":")[0] not in req.gfx_targets
        ]
        if not (
            any_facts(inp.facts, "ollama").get("server")
            or any_facts(inp.facts, "ollama").get("version")
        ):
            items = []
    o = any_facts(inp.facts, "ollama")
    envs = _envs(o)
    env = envs.get("server") or log.get("env") or {**envs["shell"], **envs["systemd"]}
    if not items or env.get("HSA_OVERRIDE_GFX_VERSION"):
        return []
    item = items[0]
    value = inp.tables.gfx_override(str(item["gfx"]))
    params = {
        "gfx": item["gfx"],
        "supported": " ".join(item.get("supported") or []) or "—",
        "override": value or "—",
    }
    cmds: tuple[str, ...] = (
        fixes.service_env(inp.host, f"HSA_OVERRIDE_GFX_VERSION={value}")
        if value
        else (fixes.comment("rocm_no_override"),)
    )
    return [Finding("ollama.amd_unsupported", "error", params, cmds)]


RULES = (myths, server, env_applied, requirements)
IDS = (
    "ollama.myth_ollama_cuda",
    "ollama.myth_num_gpu",
    "ollama.myth_log_level",
    "ollama.not_running",
    "ollama.unreachable",
    "ollama.host_port",
    "ollama.bad_host",
    "ollama.env_not_applied",
    "ollama.driver_too_old",
    "ollama.amd_unsupported",
    "ollama.cpu_only",
    "ollama.partial_offload",
    "ollama.ok",
    "ollama.no_gpu_discovered",
)
WHY_KEYS = (
    "amd_unsupported",
    "driver_log",
    "gpus_hidden",
    "no_gpu",
    "driver_problem",
    "gpu_too_old",
    "driver_too_old",
    "too_big",
    "container",
    "unknown",
)
