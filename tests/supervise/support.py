"""Helpers for the supervise tests: the fake trainer's command line, arming a fake cloud once the
trainer has written its first checkpoint, and reading the journal back."""

from __future__ import annotations

import datetime as dt
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

from gpuwise.preempt.summary import JournalEvent
from gpuwise.supervise.journal import Journal

TRAINER = Path(__file__).with_name("trainer.py")
FAST = ("--poll-s", "0.1", "--checkpoint-poll-s", "0.1")


def trainer_cmd(ckpt: Path, progress: Path, *extra: str) -> list[str]:
    """The fake trainer: a step every 20 ms, a 0.1 s checkpoint every 5 steps."""
    return [
        sys.executable,
        str(TRAINER),
        "--ckpt-dir",
        str(ckpt),
        "--progress",
        str(progress),
        "--step-s",
        "0.02",
        "--save-every",
        "5",
        "--save-s",
        "0.1",
        *extra,
    ]


def wait_for(path: Path, timeout_s: float = 15.0) -> bool:
    """Wait until a file exists."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if path.exists():
            return True
        time.sleep(0.02)
    return False


def arm_after_first_checkpoint(ckpt: Path, state: Any, notice_s: float) -> threading.Thread:
    """Start a thread that arms the fake cloud once checkpoint-5 is complete."""

    def run() -> None:
        if wait_for(ckpt / "checkpoint-5" / "state.json"):
            time.sleep(0.2)  # let the supervisor record it as a periodic checkpoint
            state.arm(notice_s)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def events(journal: Path, job: str) -> list[JournalEvent]:
    """Every event of a job."""
    return Journal(journal).events(job)


def kinds(evs: list[JournalEvent], kind: str) -> list[JournalEvent]:
    """The events of one kind."""
    return [e for e in evs if e.kind == kind]


def alive(pid: int) -> bool:
    """Whether a process exists (and is not a zombie)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


def iso(text: str) -> dt.datetime:
    """An ISO time from the journal."""
    return dt.datetime.fromisoformat(text)
