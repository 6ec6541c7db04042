"""The checkpoint directory as the supervisor sees it: scanned at its own pace, each newly
complete checkpoint journaled once, save times and cadence kept, a slow save warned about.

Split out of the supervisor's loop (runner.py) so that the loop reads as "start, watch, react"
and this part can be read alone: which checkpoint counts as "saved on the notice" (its content
written after the notice was passed on, by file time) and which one to resume from.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpuwise.preempt.cadence import CadenceVerdict, check_cadence, intervals
from gpuwise.preempt.checkpoints import CheckpointTracker, Completed
from gpuwise.supervise.config import SuperviseConfig
from gpuwise.supervise.outcome import Outcome, say
from gpuwise.supervise.scan import scan_dir

MTIME_SLACK_NS = 20_000_000
"""File times come from the kernel's coarse clock, up to one tick (10 ms at HZ=100) behind
`time.time_ns()`: a file written just after the notice may carry a time a few ms before it."""

Log = Callable[..., None]


class CheckpointWatch:
    """Checkpoints of one supervision: `log(kind, **data)` journals, `outcome` gets warnings."""

    def __init__(self, cfg: SuperviseConfig, log: Log, outcome: Outcome) -> None:
        self.cfg = cfg
        self.tracker = CheckpointTracker(cfg.marker is not None, cfg.stable_polls)
        self._log = log
        self._outcome = outcome
        self.next_scan = 0.0
        self.saves: list[float] = []
        self.periodic: list[float] = []
        self.slow_warned = False
        self.notice_ns: int | None = None  # wall clock when the notice was passed on

    def prime(self, now: float) -> None:
        """Learn what is already in the directory (those are not new checkpoints)."""
        cfg = self.cfg
        if cfg.checkpoint_dir is not None:
            self.tracker.prime(scan_dir(cfg.checkpoint_dir, cfg.pattern, cfg.marker), now)

    def scan(self, on_notice: bool, force: bool = False) -> list[Completed]:
        """Checkpoints that became complete since the last scan (none when not yet due)."""
        cfg = self.cfg
        if cfg.checkpoint_dir is None:
            return []
        now = time.monotonic()
        if not force and now < self.next_scan:
            return []
        self.next_scan = now + cfg.checkpoint_poll_s
        done = self.tracker.feed(scan_dir(cfg.checkpoint_dir, cfg.pattern, cfg.marker), time.time())
        for c in done:
            self._record(c, str(cfg.checkpoint_dir / c.name), on_notice and self.after_notice(c))
        return done

    def _record(self, c: Completed, path: str, saved_on_notice: bool) -> None:
        self._log(
            "checkpoint",
            name=c.name,
            path=path,
            rel=c.name,
            save_s=c.save_s,
            on_notice=saved_on_notice,
            preexisting=False,
            mtime_ns=c.newest_mtime_ns,
        )
        say("supervise.checkpoint", path=path, save=f"{c.save_s or 0:.1f}")
        if c.save_s is not None:
            self.saves.append(c.save_s)
        if not saved_on_notice:
            self.periodic.append(c.completed_t)
        self._check_slow(c)

    def after_notice(self, c: Completed) -> bool:
        """Whether a checkpoint's content was written after the notice was passed on: only such
        a one was "saved on the notice" (a scan may confirm an older one after the notice)."""
        return self.notice_ns is not None and c.newest_mtime_ns >= self.notice_ns - MTIME_SLACK_NS

    def _check_slow(self, c: Completed) -> None:
        usable = self.cfg.usable_notice_s()
        if c.save_s is None or c.save_s <= usable or self.slow_warned:
            return
        self.slow_warned = True
        self._log("warning", key="slow_checkpoint", save_s=c.save_s, usable_s=usable)
        self._outcome.warnings.append("slow_checkpoint")
        say(
            "supervise.slow_checkpoint",
            save=f"{c.save_s:.1f}",
            usable=f"{usable:.1f}",
            notice=f"{self.cfg.notice_length_s():g}",
        )

    def cadence(self) -> CadenceVerdict | None:
        """How the saves compare with the notice (None when nothing was saved)."""
        if not (self.saves or self.periodic):
            return None
        notice = self.cfg.notice_length_s()
        return check_cadence(
            self.saves, intervals(self.periodic), notice, notice - self.cfg.usable_notice_s()
        )

    def newest(self) -> str | None:
        """The newest complete checkpoint's path."""
        c = self.tracker.newest()
        return (
            None
            if c is None or self.cfg.checkpoint_dir is None
            else str(self.cfg.checkpoint_dir / c.name)
        )

    def initial_resume(self, journaled: dict[str, Any]) -> str | None:
        """The newest of: the journal's last checkpoint (a shared journal: another machine's)
        and the newest complete checkpoint already in the directory."""
        recorded = [str(journaled.get("path") or "")]
        if self.cfg.checkpoint_dir is not None and journaled.get("rel"):
            # the shared disk may be mounted elsewhere on this machine
            recorded.append(str(self.cfg.checkpoint_dir / str(journaled["rel"])))
        cands = [p for p in recorded[:2] if p and Path(p).exists()]
        local = self.newest()
        if local:
            cands.append(local)
        return max(cands, key=_mtime, default=None)


def _mtime(path: str) -> float:
    try:
        return Path(path).stat().st_mtime
    except OSError:
        return 0.0
