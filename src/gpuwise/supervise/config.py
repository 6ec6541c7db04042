"""What one supervision needs, resolved from the options and the catalog.

The catalog gives the endpoints, DMI rules and named constants (data/compat/preemption.toml);
options override what the user chose. Bad values become UserErrors (exit 2) here, before any
process starts.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpuwise.catalog.schema_supervise import CLOUD_IDS, CloudDmiRule, PreemptionEndpoint
from gpuwise.errors import UserError

SIGNALS = {
    "USR1": signal.SIGUSR1,
    "USR2": signal.SIGUSR2,
    "TERM": signal.SIGTERM,
    "INT": signal.SIGINT,
    "HUP": signal.SIGHUP,
}
SETTING_IDS = (
    "http_timeout_s",
    "notice_margin_fraction",
    "platform_grace_s",
    "kill_grace_s",
    "checkpoint_poll_s",
    "stable_polls",
    "max_restarts",
    "restart_backoff_s",
    "restart_backoff_max_s",
)


@dataclass(frozen=True)
class CatalogFacts:
    """The catalog's supervise data: endpoints, DMI rules, constants by id."""

    endpoints: tuple[PreemptionEndpoint, ...]
    dmi_rules: tuple[CloudDmiRule, ...]
    settings: dict[str, float]

    @classmethod
    def load(cls, cat: Any) -> CatalogFacts:
        """Read them from a loaded catalog; a missing constant is a catalog error."""
        settings = {s.id: float(s.value) for s in cat.extra("supervise_setting")}
        missing = [k for k in SETTING_IDS if k not in settings]
        if missing:
            raise UserError("supervise.catalog_missing", names=", ".join(missing))
        return cls(tuple(cat.extra("preemption_endpoint")), tuple(cat.extra("cloud_dmi")), settings)

    def endpoints_for(self, cloud: str) -> tuple[PreemptionEndpoint, ...]:
        """The endpoints of one cloud, in catalog order."""
        return tuple(e for e in self.endpoints if e.cloud == cloud)


@dataclass(frozen=True)
class SuperviseConfig:
    """Everything the runner needs; built by the CLI."""

    argv: tuple[str, ...]
    job: str
    journal: Path
    cloud: str  # a catalog cloud id, or "none"
    cloud_source: str  # option | dmi | none
    endpoints: tuple[PreemptionEndpoint, ...]
    metadata_url: str | None
    checkpoint_dir: Path | None
    pattern: str
    marker: str | None
    notice_signal: int
    on_notice: str | None
    margin_s: float | None
    notice_s: float | None
    poll_s: float | None
    checkpoint_poll_s: float
    grace_s: float
    kill_grace_s: float
    restart: bool
    max_restarts: int
    backoff_s: float
    backoff_max_s: float
    offer: str
    http_timeout_s: float
    margin_fraction: float
    stable_polls: int

    def notice_length_s(self) -> float:
        """The notice the job must live with: --notice-s, else the cloud's spot notice, else the
        platform grace period (no cloud: a SIGTERM is all the warning there is)."""
        if self.notice_s is not None:
            return self.notice_s
        ending = [e.notice_s for e in self.endpoints if e.kind != "rebalance"]
        return float(min(ending)) if ending else self.grace_s

    def usable_notice_s(self) -> float:
        """The notice less the margin kept back for exiting."""
        n = self.notice_length_s()
        margin = self.margin_s if self.margin_s is not None else n * self.margin_fraction
        return max(0.0, n - margin)


def parse_signal(name: str) -> int:
    """`SIGUSR1`, `usr1`, `TERM`, … → the signal number; others are refused."""
    key = name.strip().upper().removeprefix("SIG")
    if key not in SIGNALS:
        raise UserError("supervise.bad_signal", value=name, allowed=", ".join(SIGNALS))
    return int(SIGNALS[key])


def check_cloud(name: str) -> str:
    """`auto`, `none` or a catalog cloud id (case-insensitive)."""
    key = name.strip().lower()
    if key in ("auto", "none", *CLOUD_IDS):
        return key
    raise UserError(
        "supervise.bad_cloud", value=name, allowed=", ".join(("auto", "none", *CLOUD_IDS))
    )


def check_pattern(pattern: str) -> str:
    """A `--pattern` glob that can match a top-level entry, else a UserError.

    fnmatch reads a `[` without its `]` as a literal bracket, so `--pattern '['` would be
    accepted and silently never match: the supervisor would then wait for a checkpoint that it
    can never see. Empty patterns and patterns with a `/` (only the top level is listed) fail
    the same way and are refused too.
    """
    if not pattern or "/" in pattern or _unclosed_bracket(pattern):
        raise UserError("supervise.bad_pattern", value=pattern)
    return pattern


def _unclosed_bracket(pattern: str) -> bool:
    """Whether a `[` opens a set that fnmatch never sees closed (its own rules: a `]` right
    after `[` or `[!` belongs to the set)."""
    i = 0
    while i < len(pattern):
        if pattern[i] == "[":
            j = i + 1
            if j < len(pattern) and pattern[j] == "!":
                j += 1
            if j < len(pattern) and pattern[j] == "]":
                j += 1
            close = pattern.find("]", j)
            if close < 0:
                return True
            i = close
        i += 1
    return False
