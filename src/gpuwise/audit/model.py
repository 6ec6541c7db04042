"""A finding of the audit, a check it could not make, and the order of severities."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpuwise.i18n import t


@dataclass(frozen=True)
class Finding:
    """One problem (or, at "info", one fact worth knowing).

    Texts live in i18n/audit.toml under `audit.f.<key>.{title,seen,fix}` and are formatted with
    `params`. `rule` is the stable id (SARIF ruleId, CI suppressions); `commands` are shell lines
    that fix it; `sources` are catalog source ids the rule rests on; `location` a file the
    finding is about (empty when it is about a socket or a process).
    """

    rule: str
    area: str
    severity: str
    key: str
    params: dict[str, Any] = field(default_factory=dict)
    commands: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    location: str = ""
    fix_key: str = ""
    """A message key for the fix when it depends on more than the rule (e.g. per service)."""

    def text(self, part: str) -> str:
        """title / seen / fix in the current language. A param written `@audit.…` is itself a
        message key, translated here (e.g. where an sshd value came from: "default")."""
        params = {k: _local(v) for k, v in self.params.items()}
        if part == "fix" and self.fix_key:
            return t(self.fix_key, **params)
        return t(f"audit.f.{self.key}.{part}", **params)


@dataclass(frozen=True)
class Skip:
    """A check that could not be made, and why (needs root, tool missing, timed out)."""

    area: str
    key: str
    params: dict[str, Any] = field(default_factory=dict)

    def text(self) -> str:
        """The reason in the current language."""
        return t(f"audit.skip.{self.key}", **self.params)


def _local(value: Any) -> Any:
    if isinstance(value, str) and value.startswith("@audit."):
        return t(value[1:])
    return value


def lower(severity: str, order: tuple[str, ...]) -> str:
    """One step less severe (`order` runs from the worst to the mildest)."""
    i = order.index(severity)
    return order[min(i + 1, len(order) - 1)]
