"""Shared fixtures for the cost model tests: the real catalog and a fixed 'today'."""

from __future__ import annotations

import datetime as dt

import pytest

from gpuwise.catalog import Catalog, load_catalog
from gpuwise.cost.resolve import Context, make_context

TODAY = dt.date(2026, 12, 2)


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog(use_overrides=False, use_cache=False)


@pytest.fixture(scope="module")
def cny(cat: Catalog) -> Context:
    return make_context(cat, "CNY", TODAY)


@pytest.fixture(scope="module")
def usd(cat: Catalog) -> Context:
    return make_context(cat, "USD", TODAY)
