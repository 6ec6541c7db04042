"""Run the audit's probes for the chosen areas, in parallel, within one deadline.

Every area ends as a probe result dict (status, reason, detail, facts); a probe that raises or
misses the deadline becomes a Failed or TimedOut result, never an exception. Nothing here
changes the machine: sockets are listed, files are stat()ed or read, commands only print.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

from gpuwise.audit.ports import check_target, identify, scope, sole_listeners
from gpuwise.audit.tables import AuditTables
from gpuwise.probe.audit_docker import probe_docker
from gpuwise.probe.audit_files import probe_files
from gpuwise.probe.audit_firewall import probe_firewall
from gpuwise.probe.audit_sockets import check_auth, probe_listeners, processes_named
from gpuwise.probe.audit_ssh import probe_ssh
from gpuwise.probe.audit_versions import probe_versions
from gpuwise.probe.context import ProbeContext
from gpuwise.probe.result import Failed, Found, ProbeResult, TimedOut, as_dict

_MAX_AUTH_CHECKS = 32  # listeners asked at most (a box with hundreds of ports stays fast)


def collect(
    ctx: ProbeContext,
    tables: AuditTables,
    areas: Sequence[str],
    as_root: bool,
    cwd: Path,
    loopback: frozenset[str] | None = None,
) -> dict[str, dict[str, Any]]:
    """area → result dict, in the order of `areas`."""
    cmd_s = tables.settings["command_timeout_s"]
    http_s = tables.settings["http_timeout_s"]
    jobs: dict[str, Callable[[], ProbeResult]] = {
        "ports": lambda: _ports(tables, loopback, http_s),
        "ssh": lambda: probe_ssh(ctx, as_root, cmd_s),
        "containers": lambda: probe_docker(ctx, cmd_s),
        "versions": lambda: probe_versions(ctx, cmd_s),
        "files": lambda: probe_files(tables.files, ctx.home, cwd),
        "firewall": lambda: probe_firewall(ctx, as_root, cmd_s),
    }
    chosen = [a for a in areas if a in jobs]
    out: dict[str, dict[str, Any]] = {}
    budget_s = max(0.05, ctx.deadline - time.monotonic())
    pool = ThreadPoolExecutor(max_workers=max(1, len(chosen)))
    try:
        futures = {a: pool.submit(_safe, jobs[a]) for a in chosen}
        wait(futures.values(), timeout=budget_s)
        for area in chosen:
            fut = futures[area]
            out[area] = as_dict(fut.result() if fut.done() else TimedOut(round(budget_s, 2)))
    finally:
        pool.shutdown(wait=False, cancel_futures=True)  # a hung probe is not waited for
    return out


def _safe(job: Callable[[], ProbeResult]) -> ProbeResult:
    try:
        return job()
    except Exception as exc:  # a probe must never crash the audit
        return Failed("probe_error", f"{type(exc).__name__}: {exc}")


def _ports(tables: AuditTables, loopback: frozenset[str] | None, http_s: float) -> ProbeResult:
    """Listeners, then the auth check for each known service listening beyond loopback."""
    result = probe_listeners()
    if not isinstance(result, Found):
        return result
    listeners: list[dict[str, Any]] = result.facts["listeners"]
    sole = sole_listeners(listeners)
    todo: list[tuple[dict[str, Any], Any, str]] = []
    for item in listeners:
        if scope(str(item["ip"]), loopback) == "loopback":
            continue
        service, _ = identify(item, tables.services, int(item.get("pid") or 0) in sole)
        if service is None:
            continue
        target = check_target(str(item["ip"]))
        if target is None:
            item["auth"], item["auth_detail"] = "not_checked", "not on loopback"
        else:
            todo.append((item, service, target))
    with ThreadPoolExecutor(max_workers=8) as pool:
        futs = [
            (item, pool.submit(check_auth, target, int(item["port"]), svc.auth, http_s))
            for item, svc, target in todo[:_MAX_AUTH_CHECKS]
        ]
        for item, fut in futs:
            item["auth"], item["auth_detail"] = fut.result()
    prefixes = [p for r in tables.rules.values() for p in r.process_prefixes]
    result.facts["tunnels"] = processes_named(prefixes)
    return result
