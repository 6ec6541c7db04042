"""User overrides layered over the built-in data; malformed files name file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.errors import CatalogError


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
    with pytest.raises(CatalogError) as err:
        load_catalog()
    msg = err.value.render()
    assert str(path) in msg and needle in msg


@pytest.mark.usefixtures("fixture_catalog")
def test_malformed_override_line_number(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "bad.toml",
        SRC + '\n[[gpu]]\nid = "rtx-4090"\nsource = "my-bench"\nmemory_gb = -1\n',
    )
    with pytest.raises(CatalogError) as err:
        load_catalog()
    assert "bad.toml:10:" in err.value.render()  # the memory_gb line


@pytest.mark.usefixtures("fixture_catalog")
def test_malformed_override_cli_exit_2(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    _write(
        tmp_path,
        "bad.toml",
        SRC + '[[gpu]]\nid = "rtx-4090"\nsource = "my-bench"\nmemory_gb = "x"\n',
    )
    res = cli("gpus")
    assert res.code == 2
    assert "bad.toml" in res.err and "memory_gb" in res.err
    assert len(res.err.strip().splitlines()) == 1


@pytest.mark.usefixtures("fixture_catalog")
def test_number_without_source_is_rejected(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "nosrc.toml",
        '[[gpu]]\nid = "new"\nname = "N"\nvendor = "other"\n'
        'class = "consumer"\nrelease_year = 2024\nmemory_gb = 8\npcie_gen = 4\n',
    )
    with pytest.raises(CatalogError) as err:
        load_catalog()
    assert "source" in err.value.render()


@pytest.mark.usefixtures("fixture_catalog")
def test_schema_version_mismatch(tmp_path: Path) -> None:
    _write(tmp_path, "future.toml", "schema = 99\n")
    with pytest.raises(CatalogError) as err:
        load_catalog()
    assert "99" in err.value.render()


@pytest.mark.usefixtures("fixture_catalog")
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
