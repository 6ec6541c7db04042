"""Firewall presence: ufw, firewalld, nftables. Facts only; what the firewall allows per port is
not read (it needs root and a rule parser), so an active firewall is reported as "info" and the
exposed services keep their own findings. Docker-published ports bypass ufw and firewalld
(Docker's packet-filtering docs), which the container findings say.
"""

from __future__ import annotations

from typing import Any

from gpuwise.audit.model import Finding, lower
from gpuwise.audit.tables import AuditTables


def firewall_findings(facts: dict[str, Any], exposed: int, tables: AuditTables) -> list[Finding]:
    """Info when a firewall is active; a finding when none is (its catalog severity when
    `exposed` services listen beyond loopback, one step lower otherwise); nothing when it could
    not be told."""
    active = [
        name
        for name, on in (
            ("ufw", facts.get("ufw", {}).get("enabled")),
            ("firewalld", facts.get("firewalld", {}).get("running")),
            ("nftables", (facts.get("nftables", {}).get("input_chains") or 0) > 0),
        )
        if on
    ]
    if active:
        return [
            Finding(
                rule="GPUW-FW-ACTIVE",
                area="firewall",
                severity=tables.severity("GPUW-FW-ACTIVE"),
                key="fw_active",
                params={"names": ", ".join(active)},
                sources=tables.sources("GPUW-FW-ACTIVE"),
            )
        ]
    if facts.get("nftables", {}).get("unreadable"):
        return []
    severity = tables.severity(
        "GPUW-FW-NONE"
    )  # rules exist that only root can read: not known to be open
    return [
        Finding(
            rule="GPUW-FW-NONE",
            area="firewall",
            severity=severity if exposed else lower(severity, tables.order),
            key="fw_none",
            params={"exposed": exposed},
            commands=("sudo ufw allow OpenSSH", "sudo ufw enable"),
            sources=(*tables.sources("GPUW-FW-NONE"), "audit-docker-firewall"),
        )
    ]
