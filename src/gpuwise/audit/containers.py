"""Docker: containers with more power than they need, who can drive the daemon, and a daemon
listening on TCP. Facts come from `docker ps` / `docker inspect`, /etc/group and
/etc/docker/daemon.json (probe/audit_docker.py); the rules cite Docker's own documentation.
"""

from __future__ import annotations

from typing import Any

from gpuwise.audit.model import Finding
from gpuwise.audit.tables import AuditTables

ROOT_USERS = frozenset({"", "0", "root", "0:0", "root:root"})


def container_findings(facts: dict[str, Any], tables: AuditTables) -> list[Finding]:
    """Privileged containers, the daemon socket inside one, root users, public ports, the
    docker group and a TCP daemon."""
    containers = list(facts.get("containers", []))
    out: list[Finding] = []
    for c in containers:
        name = str(c.get("name") or c.get("id", "?"))
        if c.get("privileged"):
            out.append(_one("GPUW-CTR-PRIVILEGED", "ctr_privileged", name, c, tables))
        if c.get("docker_sock"):
            out.append(_one("GPUW-CTR-DOCKER-SOCK", "ctr_docker_sock", name, c, tables))
    as_root = sorted(
        str(c.get("name") or c.get("id")) for c in containers if str(c.get("user")) in ROOT_USERS
    )
    if as_root:
        out.append(
            Finding(
                rule="GPUW-CTR-ROOT",
                area="containers",
                severity=tables.severity("GPUW-CTR-ROOT"),
                key="ctr_root",
                params={"count": len(as_root), "names": ", ".join(as_root[:10])},
                commands=('docker run --user "$(id -u):$(id -g)" …',),
                sources=tables.sources("GPUW-CTR-ROOT"),
            )
        )
    published = sorted(
        f"{c.get('name')}:{p.get('port')}"
        for c in containers
        for p in c.get("published", [])
        if str(p.get("ip", "")) in ("", "0.0.0.0", "::")
    )
    if published:
        out.append(
            Finding(
                rule="GPUW-CTR-PUBLISHED",
                area="containers",
                severity=tables.severity("GPUW-CTR-PUBLISHED"),
                key="ctr_published",
                params={"count": len(published), "list": ", ".join(published[:10])},
                commands=("docker run -p 127.0.0.1:PORT:PORT …",),
                sources=tables.sources("GPUW-CTR-PUBLISHED"),
            )
        )
    out.extend(_group(facts, tables))
    out.extend(_tcp_daemon(facts, tables))
    return out


def _one(rule: str, key: str, name: str, c: dict[str, Any], tables: AuditTables) -> Finding:
    return Finding(
        rule=rule,
        area="containers",
        severity=tables.severity(rule),
        key=key,
        params={"name": name, "image": c.get("image", "?")},
        commands=(f"docker inspect {name}",),
        sources=tables.sources(rule),
    )


def _group(facts: dict[str, Any], tables: AuditTables) -> list[Finding]:
    members = sorted(str(m) for m in facts.get("group_members", []))
    if not members:
        return []
    return [
        Finding(
            rule="GPUW-DOCKER-GROUP",
            area="containers",
            severity=tables.severity("GPUW-DOCKER-GROUP"),
            key="docker_group",
            params={"count": len(members), "members": ", ".join(members)},
            commands=tuple(f"sudo gpasswd -d {m} docker" for m in members[:5]),
            sources=tables.sources("GPUW-DOCKER-GROUP"),
            location="/etc/group",
        )
    ]


def _tcp_daemon(facts: dict[str, Any], tables: AuditTables) -> list[Finding]:
    daemon = facts.get("daemon_config", {})
    if daemon.get("tlsverify"):
        return []
    hosts = [  # tcp:// on a non-loopback address; fd:// and unix:// are local
        h
        for h in daemon.get("hosts", [])
        if str(h).startswith("tcp://") and not str(h)[6:].startswith(("127.", "localhost", "[::1]"))
    ]
    if not hosts:
        return []
    return [
        Finding(
            rule="GPUW-DOCKER-TCP",
            area="containers",
            severity=tables.severity("GPUW-DOCKER-TCP"),
            key="docker_tcp",
            params={"hosts": ", ".join(hosts)},
            commands=("sudoedit /etc/docker/daemon.json", "sudo systemctl restart docker"),
            sources=tables.sources("GPUW-DOCKER-TCP"),
            location="/etc/docker/daemon.json",
        )
    ]
