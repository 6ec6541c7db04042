"""Hardening tests share one catalog cache, on disk and in memory (both keyed by every catalog
file's size and time, so an override file still gets a catalog of its own): the corpus of bad
inputs then runs in seconds instead of validating the whole catalog for every entry."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gpuwise.catalog import catalog as catalog_module

_CACHE = Path(tempfile.mkdtemp(prefix="gpuwise-hardening-cache-"))
_IN_MEMORY: dict[str, Any] = {}


@pytest.fixture(autouse=True)
def shared_cache(isolated_env: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Point the catalog cache at one folder for the whole session; keep loaded catalogs."""
    monkeypatch.setenv("GPUWISE_CACHE_DIR", str(_CACHE))
    catalog_module._loaded.update(_IN_MEMORY)
    yield
    _IN_MEMORY.update(catalog_module._loaded)
