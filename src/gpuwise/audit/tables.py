"""The catalog facts the audit rules read, gathered once (data/audit.toml)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpuwise.catalog.schema_audit import (
    AuditRule,
    AuditService,
    CredentialFile,
    FixedVersion,
    SeverityLevel,
)


@dataclass(frozen=True)
class AuditTables:
    """Services, fixed versions, credential paths, sshd defaults, severities and constants."""

    services: tuple[AuditService, ...]
    fixed: tuple[FixedVersion, ...]
    files: tuple[CredentialFile, ...]
    rules: dict[str, AuditRule]
    ssh_defaults: dict[str, str]
    severities: dict[str, SeverityLevel]
    settings: dict[str, float]
    source_urls: dict[str, str]

    @property
    def order(self) -> tuple[str, ...]:
        """Severities from the worst to the mildest."""
        return tuple(s.id for s in sorted(self.severities.values(), key=lambda s: s.rank))

    def rank(self, severity: str) -> int:
        """0 for the worst severity."""
        return self.severities[severity].rank

    def severity(self, rule_id: str) -> str:
        """The catalog severity of a rule not tied to a service (KeyError: a code bug)."""
        return self.rules[rule_id].severity

    def sources(self, rule_id: str) -> tuple[str, ...]:
        """The sources a rule rests on."""
        return tuple(self.rules[rule_id].source_ids())

    def urls(self, source_ids: tuple[str, ...]) -> list[str]:
        """The URLs of these sources (unknown ids left out)."""
        return [self.source_urls[s] for s in source_ids if s in self.source_urls]


def tables_from_catalog(cat: Any) -> AuditTables:
    """Read every audit kind out of a loaded catalog."""
    used = {k for k in cat.sources if k.startswith("audit-")}
    for kind in ("audit_service", "audit_fixed_version", "audit_credential_file", "audit_rule"):
        for entry in cat.extra(kind):
            used.update(entry.source_ids())
    return AuditTables(
        services=tuple(cat.extra("audit_service")),
        fixed=tuple(cat.extra("audit_fixed_version")),
        files=tuple(cat.extra("audit_credential_file")),
        rules={r.id: r for r in cat.extra("audit_rule")},
        ssh_defaults={d.keyword: d.value for d in cat.extra("audit_ssh_default")},
        severities={s.id: s for s in cat.extra("audit_severity")},
        settings={s.id: float(s.value) for s in cat.extra("audit_setting")},
        source_urls={k: cat.sources[k].url for k in sorted(used) if k in cat.sources},
    )
