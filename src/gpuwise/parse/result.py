"""What a probe returns: the facts it saw, or why it saw nothing.

Four outcomes, so rules can tell "not installed" from "broken" from "hung":

- :class:`Found` — the probe ran and saw something (``facts``).
- :class:`Missing` — the thing is not there (no binary, no device, not running).
- :class:`Failed` — it is there but answered with an error or garbage (``reason`` is a short
  machine-readable code, ``detail`` the first line of what it said).
- :class:`TimedOut` — it did not answer within its time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Status = Literal["found", "missing", "failed", "timeout"]


@dataclass(frozen=True)
class Found:
    """The probe saw something; ``facts`` is plain JSON-able data."""

    facts: dict[str, Any] = field(default_factory=dict)
    status: Status = "found"
    reason: str = ""
    detail: str = ""


@dataclass(frozen=True)
class Missing:
    """Not present on this machine (a normal state, not an error by itself)."""

    reason: str
    detail: str = ""
    facts: dict[str, Any] = field(default_factory=dict)
    status: Status = "missing"


@dataclass(frozen=True)
class Failed:
    """Present but broken: an error exit, an error message, or output we cannot read."""

    reason: str
    detail: str = ""
    facts: dict[str, Any] = field(default_factory=dict)
    status: Status = "failed"


@dataclass(frozen=True)
class TimedOut:
    """No answer within ``seconds``."""

    seconds: float
    facts: dict[str, Any] = field(default_factory=dict)
    status: Status = "timeout"
    reason: str = "timeout"
    detail: str = ""


ProbeResult = Found | Missing | Failed | TimedOut


def as_dict(result: ProbeResult) -> dict[str, Any]:
    """The JSON shape of a result: status, reason, detail and facts (stable keys)."""
    out: dict[str, Any] = {
        "status": result.status,
        "reason": result.reason,
        "detail": result.detail,
        "facts": result.facts,
    }
    if isinstance(result, TimedOut):
        out["seconds"] = result.seconds
    return out


def facts_of(result: ProbeResult | None) -> dict[str, Any]:
    """The facts of a Found result, else an empty dict (rules read through this)."""
    return result.facts if isinstance(result, Found) else {}
