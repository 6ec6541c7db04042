"""Where catalog files and caches live, and the cache itself.

Kept free of pydantic and TOML imports: commands that only list the catalog read a cache of
plain data through here and start faster.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from gpuwise import dirs

SCHEMA_VERSION = 1
_DATA_DIR = Path(__file__).parent / "data"


def builtin_dir() -> Path:
    """The shipped catalog, or GPUWISE_DATA_DIR (tests and benchmarks use their own data)."""
    env = os.environ.get("GPUWISE_DATA_DIR")
    return Path(env) if env else _DATA_DIR


def builtin_files() -> list[Path]:
    """The catalog files, in a stable order; a GPUWISE_DATA_DIR without any is an error (an
    empty catalog would make every name "unknown", which points the user the wrong way)."""
    files = sorted(builtin_dir().rglob("*.toml"))
    if not files and os.environ.get("GPUWISE_DATA_DIR"):
        from gpuwise.errors import UserError

        raise UserError("files.bad_data_dir", path=os.environ["GPUWISE_DATA_DIR"])
    return files


def override_dir() -> Path:
    """Where the user's override files live (gpuwise writes only the files it manages there)."""
    return dirs.config_dir() / "catalog"


def override_files() -> list[Path]:
    """The user's override files, if any."""
    folder = override_dir()
    return sorted(folder.glob("*.toml")) if folder.is_dir() else []


def cache_dir() -> Path:
    """The user cache (GPUWISE_CACHE_DIR overrides the platform's)."""
    return dirs.cache_dir()


def feed_dir() -> Path:
    """Where `gpuwise prices refresh` keeps the price feeds it read (catalog-format TOML)."""
    return cache_dir() / "prices"


def feed_files() -> list[Path]:
    """The refreshed feed files, if any: a layer between the built-in data and the overrides."""
    folder = feed_dir()
    return sorted(folder.glob("*.toml")) if folder.is_dir() else []


def fingerprint(paths: Iterable[Path]) -> str:
    """A key that changes whenever any file changes (size, mtime, name).

    The modules that define the typed entries and the catalog's own shape count too: a cache
    pickled by an older gpuwise (another schema) must never be loaded by a newer one.
    """
    h = hashlib.sha256(f"schema{SCHEMA_VERSION}".encode())
    here = Path(__file__).parent
    code = [*sorted(here.glob("schema*.py")), here / "catalog.py", here / "lazy.py"]
    for p in [*code, *paths]:
        st = p.stat()
        h.update(f"{p}|{st.st_size}|{st.st_mtime_ns}".encode())
    return h.hexdigest()[:24]


def cache_path(key: str, kind: str = "catalog") -> Path:
    """Pickle of a validated catalog for `key`; GPUWISE_CACHE_DIR overrides the location."""
    return dirs.cache_dir() / f"{kind}-{key}.pickle"


def load_cached(key: str, kind: str = "catalog") -> Any | None:
    """A cached object, or None when absent or unreadable (then we rebuild it)."""
    path = cache_path(key, kind)
    try:
        with path.open("rb") as fh:
            return pickle.load(fh)
    except Exception:
        return None


def store_cached(key: str, catalog: Any, kind: str = "catalog") -> None:
    """Write a cache; failure to write (read-only home, full disk) is not an error."""
    path = cache_path(key, kind)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        with tmp.open("wb") as fh:
            pickle.dump(catalog, fh, protocol=pickle.HIGHEST_PROTOCOL)
        tmp.replace(path)
        _prune(path.parent, kind)
    except OSError:
        pass


KEEP_CACHES = 4
"""Caches of one kind kept: each catalog edit or upgrade makes a new key, and a user may switch
between a few override sets (GPUWISE_CONFIG_DIR), so the newest few stay and older ones go."""


def _prune(folder: Path, kind: str) -> None:
    """Remove all but the newest KEEP_CACHES pickles of `kind` (a few MB each)."""
    files = sorted(folder.glob(f"{kind}-*.pickle"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in files[KEEP_CACHES:]:
        old.unlink(missing_ok=True)
