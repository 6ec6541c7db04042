"""How a supervision ended (the CLI prints it and exits with its code), and the progress lines
it writes on the way (stderr, in the user's language)."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

from gpuwise.i18n import t
from gpuwise.preempt.cadence import CadenceVerdict


@dataclass
class Outcome:
    """How a supervision ended (the CLI prints it and exits with `code`)."""

    code: int
    outcome: str  # completed | failed | preempted | platform-sigterm | interrupted
    attempts: int
    run_id: int
    job: str
    journal: str
    last_checkpoint: str | None = None
    checkpoint_on_notice: bool | None = None
    killed: bool = False  # the command ignored the stop signal and was SIGKILLed
    notice: dict[str, Any] | None = None
    cadence: CadenceVerdict | None = None
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """JSON shape."""
        return {
            "exit_code": self.code,
            "outcome": self.outcome,
            "attempts": self.attempts,
            "run_id": self.run_id,
            "job": self.job,
            "journal": self.journal,
            "last_checkpoint": self.last_checkpoint,
            "checkpoint_on_notice": self.checkpoint_on_notice,
            "killed": self.killed,
            "notice": self.notice,
            "cadence": None if self.cadence is None else self.cadence.as_dict(),
            "warnings": self.warnings,
        }


@dataclass
class Attempt:
    """How one start of the command ended."""

    code: int
    ended_by: str  # completed | failed | preempted | platform-sigterm | interrupted


def say(key: str, **params: Any) -> None:
    """One progress line on stderr, in the user's language."""
    sys.stderr.write(t(key, **params) + "\n")
    sys.stderr.flush()
