"""Run the audit's probes for the chosen areas, in parallel, within one deadline.

Every area ends as a probe result dict (status, reason, detail, facts); a probe that raises or
misses the deadline becomes a Failed or TimedOut result, never an exception. Nothing here
changes the machine: sockets are listed, files are stat()ed or read, commands only print.
Probe gathers, audit judges: what to look at comes in as an :class:`AuditJob` (built by
gpuwise.audit.ports.probe_job), so this module imports nothing from audit/.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any, Protocol

from gpuwise.catalog.schema_audit import AuthProbe, CredentialFile
from gpuwise.parse.result import Failed, Found, ProbeResult, TimedOut, as_dict
from gpuwise.probe.audit_docker import probe_docker
from gpuwise.probe.audit_files import probe_files
from gpuwise.probe.audit_firewall import probe_firewall
from gpuwise.probe.audit_sockets import check_auth, probe_listeners, processes_named
from gpuwise.probe.audit_ssh import probe_ssh
from gpuwise.probe.audit_versions import probe_versions
from gpuwise.probe.context import ProbeContext


class AuditJob(Protocol):
    """What the probes are told to look at (gpuwise.audit.ports.ProbeJob provides it)."""

    @property
    def command_timeout_s(self) -> float: ...
    @property
    def http_timeout_s(self) -> float: ...
    @property
    def credential_files(self) -> Sequence[CredentialFile]: ...
    @property
    def tunnel_prefixes(self) -> Sequence[str]: ...

    def auth_checks(
        self, listeners: list[dict[str, Any]]
    ) -> Sequence[tuple[dict[str, Any], AuthProbe, str]]:
        """(listener, how to ask, loopback address) for each listener worth asking."""
        ...


def collect(
    ctx: ProbeContext, job: AuditJob, areas: Sequence[str], as_root: bool, cwd: Path
) -> dict[str, dict[str, Any]]:
    """area → result dict, in the order of `areas`."""
    cmd_s = job.command_timeout_s
    jobs: dict[str, Callable[[], ProbeResult]] = {
        "ports": lambda: _ports(job),
        "ssh": lambda: probe_ssh(ctx, as_root, cmd_s),
        "containers": lambda: probe_docker(ctx, cmd_s),
        "versions": lambda: probe_versions(ctx, cmd_s),
        "files": lambda: probe_files(job.credential_files, ctx.home, cwd),
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


def _ports(job: AuditJob) -> ProbeResult:
    """Listeners, then the auth check for each listener the job says is worth asking."""
    result = probe_listeners()
    if not isinstance(result, Found):
        return result
    listeners: list[dict[str, Any]] = result.facts["listeners"]
    with ThreadPoolExecutor(max_workers=8) as pool:
        futs = [
            (item, pool.submit(check_auth, target, int(item["port"]), auth, job.http_timeout_s))
            for item, auth, target in job.auth_checks(listeners)
        ]
        for item, fut in futs:
            item["auth"], item["auth_detail"] = fut.result()
    result.facts["tunnels"] = processes_named(list(job.tunnel_prefixes))
    return result
