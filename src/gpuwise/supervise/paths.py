"""Where supervise keeps its state: the journal and the notice file.

`GPUWISE_STATE_DIR` wins (tests isolate it; a shared mount can be named here too), else the
platform's user data directory (platformdirs), e.g. ~/.local/share/gpuwise on Linux.
"""

from __future__ import annotations

import os
from pathlib import Path


def state_dir() -> Path:
    """gpuwise's own data directory (not created here)."""
    env = os.environ.get("GPUWISE_STATE_DIR")
    if env:
        return Path(env)
    from platformdirs import user_data_dir

    return Path(user_data_dir("gpuwise"))


def default_journal() -> Path:
    """The journal used when `--journal` is not given."""
    return state_dir() / "supervise" / "journal.sqlite3"
