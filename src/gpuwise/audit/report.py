"""The audit report: findings from every area's facts, what could not be checked, the worst
severity and the exit code (both from data/audit.toml `audit_severity`)."""

from __future__ import annotations

from typing import Any

from gpuwise.audit.containers import container_findings
from gpuwise.audit.files import file_findings
from gpuwise.audit.firewall import firewall_findings
from gpuwise.audit.model import Finding, Skip
from gpuwise.audit.ports import port_findings
from gpuwise.audit.ssh import ssh_findings
from gpuwise.audit.tables import AuditTables
from gpuwise.audit.versions import version_findings


def audit_findings(
    results: dict[str, dict[str, Any]],
    tables: AuditTables,
    loopback: frozenset[str] | None = None,
) -> tuple[list[Finding], list[Skip]]:
    """Findings for every area that was probed; each probe that saw nothing becomes a Skip.

    `results` maps an area to its probe result as a dict (status, reason, detail, facts). A
    probe that saw part of its area (docker unreachable, but /etc/group read) marks its facts
    `partial`; the rules then run on what it saw.
    """
    findings: list[Finding] = []
    skips: list[Skip] = []
    for area, result in results.items():
        facts = result.get("facts") or {}
        for note in facts.get("unreadable", []):
            skips.append(Skip(area, "unreadable", {"path": note}))
        if facts.get("pids_hidden"):
            skips.append(Skip(area, "pids_hidden", {"count": facts["pids_hidden"]}))
        if result.get("status") != "found":
            reason = str(result.get("reason") or result.get("status"))
            skips.append(Skip(area, reason, {"detail": result.get("detail") or ""}))
            if not facts.get("partial"):
                continue
        findings.extend(_area(area, facts, tables, loopback, findings))
    order = {s: tables.rank(s) for s in tables.severities}
    findings.sort(key=lambda f: (order[f.severity], f.area, f.rule))
    return findings, skips


def _area(
    area: str,
    facts: dict[str, Any],
    tables: AuditTables,
    loopback: frozenset[str] | None,
    so_far: list[Finding],
) -> list[Finding]:
    if area == "ports":
        return port_findings(facts, tables, loopback)
    if area == "ssh":
        return ssh_findings(facts, tables)
    if area == "containers":
        return container_findings(facts, tables)
    if area == "versions":
        return version_findings(facts, tables)
    if area == "files":
        return file_findings(facts, tables)
    if area == "firewall":
        exposed = sum(1 for f in so_far if f.area == "ports" and f.severity != "info")
        return firewall_findings(facts, exposed, tables)
    return []


def worst(findings: list[Finding], tables: AuditTables) -> str:
    """The worst severity present ("info" when there is nothing else)."""
    if not findings:
        return "info"
    return min((f.severity for f in findings), key=tables.rank)


def exit_code(findings: list[Finding], tables: AuditTables) -> int:
    """The worst severity's exit code (catalog `audit_severity.exit_code`)."""
    return tables.severities[worst(findings, tables)].exit_code


def finding_dict(f: Finding, tables: AuditTables) -> dict[str, Any]:
    """The JSON shape of one finding (stable keys)."""
    return {
        "rule": f.rule,
        "area": f.area,
        "severity": f.severity,
        "title": f.text("title"),
        "evidence": f.text("seen"),
        "fix": f.text("fix"),
        "commands": list(f.commands),
        "refs": tables.urls(f.sources),
        "location": f.location,
        "params": {k: _plain(v) for k, v in f.params.items()},
    }


def _plain(value: Any) -> Any:
    """A message-key param (`@audit.render.ssh_default`) as its plain name (`ssh_default`)."""
    if isinstance(value, str) and value.startswith("@audit."):
        return value.rsplit(".", 1)[-1]
    return value


def make_report(
    results: dict[str, dict[str, Any]],
    tables: AuditTables,
    elapsed_s: float,
    as_root: bool,
    loopback: frozenset[str] | None = None,
) -> dict[str, Any]:
    """Everything the renderers and --json need."""
    findings, skips = audit_findings(results, tables, loopback)
    return {
        "areas": list(results),
        "as_root": as_root,
        "elapsed_s": round(elapsed_s, 3),
        "worst": worst(findings, tables),
        "exit_code": exit_code(findings, tables),
        "counts": {s: sum(1 for f in findings if f.severity == s) for s in tables.order},
        "findings": [finding_dict(f, tables) for f in findings],
        "skipped": [{"area": s.area, "reason": s.key, "text": s.text()} for s in skips],
    }
