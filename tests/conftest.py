"""Shared fixtures: an isolated home for every test, and a helper to run the CLI in-process."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gpuwise.catalog import catalog as catalog_module
from gpuwise.i18n import set_lang

FIXTURES = Path(__file__).parent / "fixtures"

# Modules that load the catalog at import time must not see the real home either.
_SESSION_HOME = Path(tempfile.mkdtemp(prefix="gpuwise-tests-"))
os.environ["GPUWISE_CONFIG_DIR"] = str(_SESSION_HOME / "config")
os.environ["GPUWISE_CACHE_DIR"] = str(_SESSION_HOME / "cache")
os.environ["GPUWISE_STATE_DIR"] = str(_SESSION_HOME / "state")  # record runs, supervise journal
# One BLAS thread per test worker: xdist already runs a worker per core, and OpenBLAS's own
# threads on top of them spin against each other (the speed fit's small least-squares solves
# ran 10x slower on the loaded 2-core machine). Read by OpenBLAS when numpy first loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def nvidia_driver_library() -> bool:
    """Whether NVIDIA's NVML library loads here (what nvidia-ml-py itself opens)."""
    import ctypes

    try:
        ctypes.CDLL("libnvidia-ml.so.1")
    except OSError:
        return False
    return True


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked `gpu` need a real NVIDIA GPU: skipped (and said so) where there is none,
    run on a GPU machine with `pytest -m gpu`."""
    gpu_tests = [item for item in items if item.get_closest_marker("gpu")]
    if not gpu_tests or (nvidia_driver_library() and Path("/dev/nvidiactl").exists()):
        return
    skip = pytest.mark.skip(reason="needs an NVIDIA GPU (run `pytest -m gpu` on a GPU machine)")
    for item in gpu_tests:
        item.add_marker(skip)


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Never read or write the real user config/cache; fixed width, no colour, English default.

    The in-memory catalog memo (`catalog._loaded`) is kept from one test to the next: it is
    keyed by the path, size and time of every catalog file (and the schema modules), so a test
    whose override or feed files differ gets a catalog of its own anyway, and the others share
    one instead of validating every TOML file again (review 3: most of the suite's time). What
    a test built from its own files is dropped when it ends (those paths never come back).
    Tests that watch a catalog being built or cached ask for `fresh_catalog`.
    """
    monkeypatch.setenv("GPUWISE_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("GPUWISE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("GPUWISE_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("GPUWISE_SYSFS_ROOT", str(tmp_path / "sys"))  # no real DMI: no real cloud
    monkeypatch.setenv("COLUMNS", "120")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("GPUWISE_LANG", raising=False)
    monkeypatch.delenv("GPUWISE_DATA_DIR", raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    shared = set(catalog_module._loaded)
    set_lang("en")
    yield
    if _own_catalog_files(tmp_path):
        for key in set(catalog_module._loaded) - shared:
            del catalog_module._loaded[key]


def _own_catalog_files(tmp_path: Path) -> bool:
    """Whether the test loaded catalog files only it has: overrides or feeds under its own
    folders, or a data folder of its own (GPUWISE_DATA_DIR outside tests/fixtures)."""
    data = os.environ.get("GPUWISE_DATA_DIR")
    return (
        (tmp_path / "config").exists()
        or (tmp_path / "cache" / "prices").exists()
        or (data is not None and not Path(data).is_relative_to(FIXTURES))
    )


@pytest.fixture
def fresh_catalog() -> Iterator[None]:
    """An empty catalog memo for this test (one that checks the disk cache or a rebuild)."""
    catalog_module._loaded.clear()
    yield
    catalog_module._loaded.clear()


@pytest.fixture
def fixture_catalog(monkeypatch: pytest.MonkeyPatch) -> None:
    """Use the small fixed catalog in tests/fixtures/catalog (for golden output)."""
    monkeypatch.setenv("GPUWISE_DATA_DIR", str(FIXTURES / "catalog"))


@dataclass
class Result:
    """What one CLI run printed and returned."""

    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Any:
    """Run `gpuwise ARGS…` in-process; returns a Result."""
    from gpuwise.cli.app import main

    def run(*args: str) -> Result:
        capsys.readouterr()
        code = main(list(args))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run
