"""Where supervise keeps its state: the journal and the notice file, under gpuwise's state
folder (gpuwise.dirs: `GPUWISE_STATE_DIR` wins, else the platform's user data folder).
"""

from __future__ import annotations

from pathlib import Path

from gpuwise.dirs import state_dir


def notice_file(pid: int) -> Path:
    """The file a supervisor (process `pid`) writes the current notice to."""
    return state_dir() / "supervise" / f"notice-{pid}.json"


def default_journal() -> Path:
    """The journal used when `--journal` is not given."""
    return state_dir() / "supervise" / "journal.sqlite3"
