"""User overrides layered over the built-in data; a malformed file is named (file, line, field)
and skipped with a warning, and everything else keeps working (issue 27: one bad file used to
make every command exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuwise.catalog import load_catalog


def _skipped_problem() -> str:
    """The problem of the one override file the loader left out (it must leave one out)."""
    cat = load_catalog()
    [finding] = [dict(p) for k, p in cat.findings if k == "catalog.override_left_out"]
    return finding["problem"]


def _write(tmp_path: Path, name: str, text: str) -> Path:
    folder = tmp_path / "config" / "catalog"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


SRC = """
[sources.my-bench]
url = "https://example.org/my-measurement"
title = "my own card"
retrieved = 2026-11-30
"""


@pytest.mark.usefixtures("fixture_catalog")
def test_override_corrects_and_adds(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "mine.toml",
        SRC
        + """
[[gpu]]
id = "rtx-4090"
source = "my-bench"
memory_bandwidth_gbps = 1000

[[gpu]]
id = "my-card"
name = "My Card 48G"
vendor = "other"
class = "workstation"
release_year = 2025
source = "my-bench"
memory_gb = 48
memory_bandwidth_gbps = 500
tdp_w = 300
pcie_gen = 4
""",
    )
    before = path.read_bytes()
    cat = load_catalog()
    g = cat.gpu("4090")
    assert g.memory_bandwidth_gbps == 1000
    assert g.memory_gb == 24  # untouched fields keep the built-in value
    assert cat.gpu("My Card 48G").memory_gb == 48
    assert path.read_bytes() == before  # never written


@pytest.mark.usefixtures("fixture_catalog")
@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ('[[gpu]]\nid = "rtx-4090"\nsource = "my-bench"\nmemory_gb = "lots"\n', "memory_gb"),
        ('[[gpu]]\nid = "rtx-4090"\nsource = "my-bench"\nmemroy_gb = 12\n', "memroy_gb"),
        ('[[gpu]]\nid = "rtx-4090"\nsource = "nowhere"\nmemory_gb = 12\n', "nowhere"),
        ('[[gpu]\nid = "x"\n', "TOML"),
        ('[[gpux]]\nid = "x"\n', "gpux"),
    ],
)
def test_malformed_override(tmp_path: Path, body: str, needle: str) -> None:
    path = _write(tmp_path, "bad.toml", SRC + body)
    problem = _skipped_problem()
    msg = problem
    assert str(path) in msg and needle in msg


@pytest.mark.usefixtures("fixture_catalog")
def test_malformed_override_line_number(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "bad.toml",
        SRC + '\n[[gpu]]\nid = "rtx-4090"\nsource = "my-bench"\nmemory_gb = -1\n',
    )
    problem = _skipped_problem()
    assert "bad.toml:10:" in problem  # the memory_gb line


@pytest.mark.usefixtures("fixture_catalog")
def test_malformed_override_is_skipped_with_one_warning(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """ovr-garbage (review 3): `gpus`, `audit`, `doctor` … exited 2 on one bad user file."""
    _write(
        tmp_path,
        "bad.toml",
        SRC + '[[gpu]]\nid = "rtx-4090"\nsource = "my-bench"\nmemory_gb = "x"\n',
    )
    _write(
        tmp_path,
        "good.toml",
        SRC.replace("my-bench", "my-other") + '[[gpu]]\nid = "h100-sxm"\nsource = "my-other"\n'
        "memory_gb = 81\n",
    )
    for args in (("gpus",), ("gpus", "--json"), ("models",), ("offers",)):
        res = cli(*args)
        assert res.code == 0, (args, res.err)
        [warning] = res.err.strip().splitlines()
        assert "bad.toml:9" in warning and "memory_gb" in warning and "skipped" in warning
    assert load_catalog().gpu("h100-sxm").memory_gb == 81  # the good override still applies
    zh = cli("gpus", "--lang", "zh")
    assert "已跳过" in zh.err


@pytest.mark.usefixtures("fixture_catalog")
def test_number_without_source_is_rejected(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "nosrc.toml",
        '[[gpu]]\nid = "new"\nname = "N"\nvendor = "other"\n'
        'class = "consumer"\nrelease_year = 2024\nmemory_gb = 8\npcie_gen = 4\n',
    )
    problem = _skipped_problem()
    assert "source" in problem


@pytest.mark.usefixtures("fixture_catalog")
def test_schema_version_mismatch(tmp_path: Path) -> None:
    _write(tmp_path, "future.toml", "schema = 99\n")
    problem = _skipped_problem()
    assert "99" in problem


@pytest.mark.usefixtures("fixture_catalog", "fresh_catalog")
def test_cache_is_used_and_invalidated(tmp_path: Path) -> None:
    from gpuwise.catalog import catalog as catalog_module

    first = load_catalog()
    catalog_module._loaded.clear()
    assert list((tmp_path / "cache").glob("catalog-*.pickle"))
    again = load_catalog()
    assert again.gpus == first.gpus
    catalog_module._loaded.clear()
    _write(
        tmp_path,
        "mine.toml",
        SRC + '[[gpu]]\nid = "rtx-4090"\nsource = "my-bench"\nmemory_gb = 25\n',
    )
    assert load_catalog().gpu("4090").memory_gb == 25
