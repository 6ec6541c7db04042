"""Where recorded runs live: one SQLite file in the user's data directory.

`GPUWISE_STATE_DIR` overrides the directory (tests, or a shared disk); otherwise platformdirs'
user data dir for "gpuwise" (~/.local/share/gpuwise on Linux). `GPUWISE_DATA_DIR` is not used
here: it overrides the catalog's data.
"""

from __future__ import annotations

import os
from pathlib import Path

STORE_FILE = "runs.sqlite"


def state_dir() -> Path:
    """The directory holding gpuwise's recorded runs (not created here)."""
    env = os.environ.get("GPUWISE_STATE_DIR")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("gpuwise"))


def store_path() -> Path:
    """The run store's file."""
    return state_dir() / STORE_FILE
