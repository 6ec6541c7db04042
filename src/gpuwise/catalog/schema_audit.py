"""Typed catalog data for `gpuwise audit`: the services a GPU box runs and what each one lets an
unauthenticated caller do, the fixed versions of known CVEs, where credentials live, sshd's
defaults, and the audit's severities and named constants.

Registered into the catalog through AUDIT_KINDS (see schema_extra.EXTRA_KINDS); the data lives in
data/audit.toml with a source on every fact, so a new service, a new bulletin or a new credential
path is a data change, not a code change.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, NonNegativeFloat

from gpuwise.catalog.schema import Sourced, Strict

Severity = Literal["critical", "high", "medium", "low", "info"]
SEVERITIES: tuple[str, ...] = ("critical", "high", "medium", "low", "info")
Area = Literal["ports", "ssh", "containers", "versions", "files", "firewall"]
AREAS: tuple[str, ...] = ("ports", "ssh", "containers", "versions", "files", "firewall")


class AuthProbe(Strict):
    """How to ask the local listener whether it wants credentials, without sending any.

    `http`: GET `path`; a status in `open_status` means anyone may use it, one in `auth_status`
    means it asked for credentials. `redis`: send the inline command PING; `+PONG` is open,
    `-NOAUTH` is protected. `none`: the service has no authentication at all (open by design).
    """

    kind: Literal["http", "redis", "none"]
    path: str = Field(default="/", pattern=r"^/")
    open_status: list[int] = Field(default_factory=lambda: [200])
    auth_status: list[int] = Field(default_factory=lambda: [401, 403])
    body_contains: str = ""
    """When set, an open answer must contain this text (tells the service from another one)."""


class AuditService(Sourced):
    """A network service common on GPU boxes: its default ports and how bad an open one is."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    name: str
    ports: list[int] = Field(min_length=1)
    process_names: list[str] = Field(default_factory=list)
    """Substrings of the process name or command line that identify it (lower case)."""
    severity_open: Severity
    """Severity when it listens beyond loopback and answers without credentials."""
    auth: AuthProbe
    fix_kind: Literal["bind", "key", "token", "tunnel"] = "bind"


class FixedVersion(Sourced):
    """A component version below which a published vulnerability is not fixed."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    component: Literal["nvidia-container-toolkit", "nvidia-driver"]
    cves: list[str] = Field(min_length=1)
    fixed: str = Field(pattern=r"^\d+(\.\d+)*$")
    branch: str = ""
    """For drivers: the major branch (e.g. "590") the fixed version belongs to; versions on
    another branch are not compared (an older branch carries its own fix)."""
    severity: Severity
    bulletin: str = ""


class CredentialFile(Sourced):
    """A file that tools write secrets into, relative to the home folder (or the work folder)."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    path: str
    base: Literal["home", "cwd"] = "home"
    tool: str
    kind: Literal["secret", "data"] = "secret"
    """`secret`: group/other may not read it; `data` (model and dataset folders): others may not
    read it on a shared box."""


class AuditRule(Sourced):
    """A rule that is not tied to one service or fixed version (SSH, containers, files,
    firewall): its severity, with the source that says why it is a risk."""

    id: str = Field(pattern=r"^GPUW-[A-Z0-9-]+$")
    area: Area
    severity: Severity
    process_prefixes: list[str] = Field(default_factory=list)
    """For rules about running processes: name prefixes that fire it (e.g. a tunnel client)."""


class SshDefault(Sourced):
    """sshd's compiled-in default for a keyword when no file sets it (sshd_config(5))."""

    keyword: str = Field(pattern=r"^[a-z]+$")
    value: str


class SeverityLevel(Sourced):
    """A severity's rank, SARIF level, SARIF security-severity score and process exit code."""

    id: Severity
    rank: int = Field(ge=0, le=4)
    sarif_level: Literal["error", "warning", "note", "none"]
    security_severity: NonNegativeFloat = Field(le=10)
    exit_code: int = Field(ge=0, le=125)


class AuditSetting(Sourced):
    """A named constant of the audit (timeouts), with its unit and basis."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_]*$")
    value: float = Field(ge=0)
    unit: str
    basis: Literal["measured", "published", "derived", "assumption"]


AUDIT_KINDS: dict[str, type[BaseModel]] = {
    "audit_service": AuditService,
    "audit_fixed_version": FixedVersion,
    "audit_credential_file": CredentialFile,
    "audit_rule": AuditRule,
    "audit_ssh_default": SshDefault,
    "audit_severity": SeverityLevel,
    "audit_setting": AuditSetting,
}
