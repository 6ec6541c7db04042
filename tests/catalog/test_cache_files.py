"""The user cache: old catalog pickles are pruned, the message table is cached and re-read."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gpuwise import i18n
from gpuwise.catalog import files


def test_store_keeps_only_the_newest_caches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPUWISE_CACHE_DIR", str(tmp_path))
    for n in range(7):
        files.store_cached(f"key{n}", {"n": n})
        os.utime(tmp_path / f"catalog-key{n}.pickle", (n, n))  # key6 newest
    files.store_cached("key7", {"n": 7})
    left = sorted(p.name for p in tmp_path.glob("catalog-*.pickle"))
    assert len(left) == files.KEEP_CACHES
    assert "catalog-key7.pickle" in left and "catalog-key0.pickle" not in left
    assert files.load_cached("key7") == {"n": 7}


def test_messages_are_cached_and_the_cache_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPUWISE_CACHE_DIR", str(tmp_path))
    i18n.messages.cache_clear()
    try:
        first = i18n.messages()
        cached = list(tmp_path.glob("messages-*.json"))
        assert len(cached) == 1
        assert json.loads(cached[0].read_text(encoding="utf-8")) == first
        # the next process reads the JSON: prove it by marking it
        data = dict(first)
        data["test.marker"] = {"en": "from the cache", "zh": "来自缓存"}
        cached[0].write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        i18n.messages.cache_clear()
        assert i18n.t("test.marker", lang="zh") == "来自缓存"
    finally:
        i18n.messages.cache_clear()
