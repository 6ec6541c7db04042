"""Listening services: which known service each socket is, whether it listens beyond loopback,
and how severe that is given what the local auth check saw.

Severity (data/audit.toml `severity_open`) applies when the service answers without credentials
or has none by design; a service that asked for credentials is reported at "info"; one whose
answer could not be read is reported one step lower than `severity_open` (assumption: an
unverified exposure is less certain than a verified one). A listener on loopback is never a
finding. The audit says "listens on all interfaces", never "exposed to the internet": cloud
security groups and NAT are invisible from inside the machine (wave-2 research §5).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from gpuwise.audit.model import Finding, lower
from gpuwise.audit.tables import AuditTables
from gpuwise.catalog.schema_audit import AuditService, AuthProbe, CredentialFile

Scope = Literal["loopback", "all", "address"]
WILDCARDS = frozenset({"0.0.0.0", "::", "*", ""})
SSH_PROCESSES = ("sshd",)


def scope(ip: str, loopback: frozenset[str] | None = None) -> Scope:
    """Where a listener can be reached from: loopback only, all interfaces, or one address.

    `loopback` replaces the real test (127.0.0.0/8, ::1) with a set of addresses: the tests
    let 127.0.0.2 stand for a public address that way.
    """
    if ip in WILDCARDS:
        return "all"
    if loopback is not None:
        return "loopback" if ip in loopback else "address"
    return "loopback" if is_real_loopback(ip) else "address"


def is_real_loopback(ip: str) -> bool:
    """127.0.0.0/8, ::1 and ::ffff:127.x.y.z."""
    try:
        addr = ipaddress.ip_address(ip.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        return addr.ipv4_mapped.is_loopback
    return addr.is_loopback


def check_target(ip: str) -> str | None:
    """The address to send the auth check to, or None when it would leave loopback.

    A wildcard listener answers on loopback too; a listener bound to a real loopback address
    is asked there; one bound to a specific other address is not asked (no traffic leaves
    loopback, even to this machine's own public address).
    """
    if ip in ("0.0.0.0", "*", ""):
        return "127.0.0.1"
    if ip == "::":
        return "::1"
    return ip if is_real_loopback(ip) else None


def identify(
    listener: dict[str, Any], services: Sequence[AuditService], sole: bool
) -> tuple[AuditService | None, bool]:
    """The known service behind a listener, and whether it was told by its port alone.

    By port and process name first; else by port alone (the process may be hidden, or a
    generic `python main.py`: the evidence names the process so the user can judge, and the
    auth check's `body_contains` keeps a stranger from reading as open); by name alone on
    another port only when the process has no other listener (`sole`), so a cluster process
    with many ports is not mistaken.
    """
    port = int(listener["port"])
    text = f"{listener.get('process') or ''} {listener.get('cmdline') or ''}".lower()
    on_port = [s for s in services if port in s.ports]
    for service in on_port:
        if _named(service, text):
            return service, False
    if on_port:
        return on_port[0], True
    if sole:
        for service in services:
            if _named(service, text) and not service.id.startswith("ray"):
                return service, False
    return None, False


def _named(service: AuditService, text: str) -> bool:
    return any(name in text for name in service.process_names)


def sole_listeners(listeners: Iterable[dict[str, Any]]) -> set[int]:
    """PIDs that own exactly one listening port."""
    ports: dict[int, set[int]] = {}
    for item in listeners:
        if item.get("pid"):
            ports.setdefault(int(item["pid"]), set()).add(int(item["port"]))
    return {pid for pid, p in ports.items() if len(p) == 1}


AuthCheck = tuple[dict[str, Any], AuthProbe, str]
"""(listener, how to ask it, the loopback address to ask it on)."""
MAX_AUTH_CHECKS = 32
"""Listeners asked at most (a box with hundreds of ports stays fast)."""


def auth_checks(
    listeners: list[dict[str, Any]],
    services: Sequence[AuditService],
    loopback: frozenset[str] | None,
) -> list[AuthCheck]:
    """Which listeners the probe asks for credentials: known services beyond loopback that can
    be asked on loopback. A known service bound to another address is marked `not_checked` in
    its listener facts (asking it would send traffic off loopback)."""
    sole = sole_listeners(listeners)
    todo: list[AuthCheck] = []
    for item in listeners:
        if scope(str(item["ip"]), loopback) == "loopback":
            continue
        service, _ = identify(item, services, int(item.get("pid") or 0) in sole)
        if service is None:
            continue
        target = check_target(str(item["ip"]))
        if target is None:
            item["auth"], item["auth_detail"] = "not_checked", "not on loopback"
        else:
            todo.append((item, service.auth, target))
    return todo[:MAX_AUTH_CHECKS]


@dataclass(frozen=True)
class ProbeJob:
    """What the audit's probes need from the audit tables (probe/audit_collect.AuditJob):
    timeouts, the credential files to look at, tunnel process names, and the choice of which
    listeners to ask. The probe gathers; this side decides what is worth asking."""

    command_timeout_s: float
    http_timeout_s: float
    credential_files: tuple[CredentialFile, ...]
    tunnel_prefixes: tuple[str, ...]
    services: tuple[AuditService, ...]
    loopback: frozenset[str] | None

    def auth_checks(self, listeners: list[dict[str, Any]]) -> list[AuthCheck]:
        """See :func:`auth_checks`."""
        return auth_checks(listeners, self.services, self.loopback)


def probe_job(tables: AuditTables, loopback: frozenset[str] | None = None) -> ProbeJob:
    """The audit probes' inputs from the tables (`loopback`: test override of what counts as
    loopback, see :func:`scope`)."""
    return ProbeJob(
        command_timeout_s=tables.settings["command_timeout_s"],
        http_timeout_s=tables.settings["http_timeout_s"],
        credential_files=tuple(tables.files),
        tunnel_prefixes=tuple(p for r in tables.rules.values() for p in r.process_prefixes),
        services=tuple(tables.services),
        loopback=loopback,
    )


def port_findings(
    facts: dict[str, Any], tables: AuditTables, loopback: frozenset[str] | None = None
) -> list[Finding]:
    """One finding per exposed known service (addresses grouped), one for the rest."""
    listeners = list(facts.get("listeners", []))
    sole = sole_listeners(listeners)
    groups: dict[tuple[str, int], list[dict[str, Any]]] = {}
    others: list[dict[str, Any]] = []
    for item in listeners:
        if scope(str(item["ip"]), loopback) == "loopback":
            continue
        service, _ = identify(item, tables.services, int(item.get("pid") or 0) in sole)
        if service is None:
            if not _is_ssh(item, tables):
                others.append(item)
            continue
        groups.setdefault((service.id, int(item["port"])), []).append(item)
    by_id = {s.id: s for s in tables.services}
    out = [_service_finding(by_id[s], port, items, tables) for (s, port), items in groups.items()]
    if others:
        out.append(_others_finding(others, tables))
    out.extend(_tunnel_findings(facts.get("tunnels", []), tables))
    return out


def _tunnel_findings(tunnels: list[dict[str, Any]], tables: AuditTables) -> list[Finding]:
    """A share-link tunnel client (Gradio's frpc) is running: the app is public via the link."""
    out = []
    for rule in tables.rules.values():
        for proc in tunnels:
            if rule.process_prefixes and str(proc["name"]).startswith(tuple(rule.process_prefixes)):
                out.append(
                    Finding(
                        rule=rule.id,
                        area="ports",
                        severity=rule.severity,
                        key="share_link",
                        params={"process": proc["name"], "pid": proc["pid"]},
                        commands=(f"kill {proc['pid']}",),
                        sources=tuple(rule.source_ids()),
                    )
                )
    return out


def _service_finding(
    service: AuditService, port: int, items: list[dict[str, Any]], tables: AuditTables
) -> Finding:
    states = [str(i.get("auth") or "not_checked") for i in items]
    severity: str
    if service.auth.kind == "none" or "open" in states:
        state, severity = "open", service.severity_open
    elif "auth" in states:
        state, severity = "protected", "info"
    else:
        state, severity = "unknown", lower(service.severity_open, tables.order)
    first = items[0]
    params = {
        "name": service.name,
        "port": port,
        "addresses": ", ".join(sorted({_addr(str(i["ip"])) for i in items})),
        "process": first.get("process") or "?",
        "pid": first.get("pid") or "?",
        "detail": next((str(i.get("auth_detail")) for i in items if i.get("auth_detail")), "-"),
    }
    return Finding(
        rule=f"GPUW-NET-{service.id.upper()}",
        area="ports",
        severity=severity,
        key=f"svc_{state}",
        params=params,
        commands=(f"ssh -N -L {port}:127.0.0.1:{port} USER@THIS_HOST",),
        sources=tuple(service.source_ids()),
        fix_key=f"audit.svc.{service.id}.fix",
    )


def _is_ssh(item: dict[str, Any], tables: AuditTables) -> bool:
    """sshd is the SSH area's business: by name, or by sshd's default port when the process
    cannot be seen."""
    process = str(item.get("process") or "")
    if process:
        return any(p in process for p in SSH_PROCESSES)
    return str(item["port"]) == tables.ssh_defaults.get("port")


def _others_finding(items: list[dict[str, Any]], tables: AuditTables) -> Finding:
    names = sorted({f"{i['port']}/{i.get('process') or '?'}" for i in items})
    return Finding(
        rule="GPUW-NET-OTHER",
        area="ports",
        severity=tables.severity("GPUW-NET-OTHER"),
        key="other_listeners",
        params={"count": len(names), "list": ", ".join(names[:20])},
        commands=("ss -tlnp",),
        sources=tables.sources("GPUW-NET-OTHER"),
    )


def _addr(ip: str) -> str:
    return f"[{ip}]" if ":" in ip else ip
