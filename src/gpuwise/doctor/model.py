"""A finding: what the doctor concluded, in both languages, with commands that fix it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from gpuwise.i18n import t

Level = Literal["ok", "info", "warn", "error"]
LEVEL_ORDER: dict[str, int] = {"error": 0, "warn": 1, "info": 2, "ok": 3}


@dataclass(frozen=True)
class Finding:
    """One conclusion. Texts live in i18n/doctor.toml under `doctor.f.<id>.{title,seen,why,fix}`
    and are formatted with `params`; `commands` are shell lines for this system (a line starting
    with "#" is a comment, already translated). A `variant` param picks `<part>_<variant>` where
    that text exists (e.g. what was seen when a pasted report shows only part of the facts)."""

    id: str
    level: Level
    params: dict[str, Any] = field(default_factory=dict)
    commands: tuple[str, ...] = ()

    def text(self, part: str) -> str:
        """One of title / seen / why / fix in the current language."""
        variant = self.params.get("variant")
        if variant:
            key = f"doctor.f.{self.id}.{part}_{variant}"
            text = t(key, **self.params)
            if text != key:
                return text
        return t(f"doctor.f.{self.id}.{part}", **self.params)

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape (stable keys)."""
        return {
            "id": self.id,
            "level": self.level,
            "title": self.text("title"),
            "detail": self.text("seen"),
            "why": self.text("why"),
            "fix": self.text("fix"),
            "commands": list(self.commands),
        }


def sort_findings(findings: list[Finding]) -> list[Finding]:
    """Errors first, then warnings, notes and all-clear, stable within a level."""
    return sorted(findings, key=lambda f: LEVEL_ORDER[f.level])


def exit_code(findings: list[Finding]) -> int:
    """1 when any finding is an error, else 0."""
    return 1 if any(f.level == "error" for f in findings) else 0
