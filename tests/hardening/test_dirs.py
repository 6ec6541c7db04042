"""gpuwise.dirs: one helper per folder, so every command finds the same state, cache and config.

Regression: `record` and `supervise` each had a `state_dir()`; only the first expanded `~` in
GPUWISE_STATE_DIR, so one setting put the run store and the journal in different places.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuwise import dirs
from gpuwise.catalog import files
from gpuwise.monitor.paths import store_path
from gpuwise.supervise.paths import default_journal, notice_file


def test_run_store_and_supervise_journal_expand_tilde_in_the_same_state_dir(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("GPUWISE_STATE_DIR", "~/gw-state")
    state = tmp_path / "gw-state"
    assert dirs.state_dir() == state
    assert store_path().parent == state
    assert default_journal() == state / "supervise" / "journal.sqlite3"
    assert notice_file(42) == state / "supervise" / "notice-42.json"


def test_catalog_overrides_and_caches_follow_the_config_and_cache_overrides(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GPUWISE_CONFIG_DIR", str(tmp_path / "cfg"))
    monkeypatch.setenv("GPUWISE_CACHE_DIR", str(tmp_path / "cache"))
    assert files.override_dir() == tmp_path / "cfg" / "catalog"
    assert files.cache_path("abc") == tmp_path / "cache" / "catalog-abc.pickle"
    assert files.feed_dir() == tmp_path / "cache" / "prices"


def test_without_overrides_the_platform_folders_are_used(monkeypatch: pytest.MonkeyPatch) -> None:
    from platformdirs import user_cache_dir, user_config_dir, user_data_dir

    for name in ("GPUWISE_STATE_DIR", "GPUWISE_CACHE_DIR", "GPUWISE_CONFIG_DIR"):
        monkeypatch.delenv(name)
    assert dirs.state_dir() == Path(user_data_dir("gpuwise"))
    assert dirs.cache_dir() == Path(user_cache_dir("gpuwise"))
    assert dirs.config_dir() == Path(user_config_dir("gpuwise"))
