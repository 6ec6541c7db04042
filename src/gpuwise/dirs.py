"""Where gpuwise keeps things on the user's disk: state, cache and configuration folders.

One helper per folder, used everywhere: `record`/`runs`/`bench` and `supervise` once each had
their own `state_dir()` and the copies had drifted (one expanded `~` in GPUWISE_STATE_DIR, the
other did not, so the same setting put the run store and the journal in different places).
Each folder has an environment override (tests isolate all three; a shared mount can be named
there); otherwise platformdirs' folder for "gpuwise". Nothing here creates a folder.
"""

from __future__ import annotations

import os
from pathlib import Path


def _override(name: str) -> Path | None:
    value = os.environ.get(name)
    return Path(value).expanduser() if value else None


def state_dir() -> Path:
    """Recorded runs, bench results, the supervise journal: GPUWISE_STATE_DIR, else the user
    data folder (~/.local/share/gpuwise on Linux)."""
    found = _override("GPUWISE_STATE_DIR")
    if found is not None:
        return found
    from platformdirs import user_data_dir

    return Path(user_data_dir("gpuwise"))


def cache_dir() -> Path:
    """Rebuildable caches (catalog pickles, messages, price feeds): GPUWISE_CACHE_DIR, else the
    user cache folder (~/.cache/gpuwise on Linux)."""
    found = _override("GPUWISE_CACHE_DIR")
    if found is not None:
        return found
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("gpuwise"))


def config_dir() -> Path:
    """The user's configuration (catalog overrides under `catalog/`): GPUWISE_CONFIG_DIR, else
    the user config folder (~/.config/gpuwise on Linux)."""
    found = _override("GPUWISE_CONFIG_DIR")
    if found is not None:
        return found
    from platformdirs import user_config_dir

    return Path(user_config_dir("gpuwise"))
