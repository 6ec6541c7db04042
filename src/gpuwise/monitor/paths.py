"""Where recorded runs live: one SQLite file in gpuwise's state folder (gpuwise.dirs).

`GPUWISE_STATE_DIR` overrides the folder (tests, or a shared disk). `GPUWISE_DATA_DIR` is not
used here: it overrides the catalog's data.
"""

from __future__ import annotations

from pathlib import Path

from gpuwise.dirs import state_dir

STORE_FILE = "runs.sqlite"


def store_path() -> Path:
    """The run store's file."""
    return state_dir() / STORE_FILE
