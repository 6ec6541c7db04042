"""Supervise tests share one catalog cache (built once, still isolated from the real home):
every test loads the catalog, and a cold build is the slowest part of a short supervised run."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def _shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("supervise-catalog-cache")


@pytest.fixture(autouse=True)
def _share_catalog_cache(_shared_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUWISE_CACHE_DIR", str(_shared_cache))
