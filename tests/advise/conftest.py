"""Fixtures shared by the planner's tests: the built-in catalog, loaded once per module (a test
module that defines its own `cat` uses that one)."""

from __future__ import annotations

import pytest

from gpuwise.catalog import Catalog, load_catalog


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()
