"""Shared helpers: the real catalog's setup tables and a plan from target flags."""

from __future__ import annotations

from typing import Any

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.setup.model import Plan
from gpuwise.setup.resolve import resolve
from gpuwise.setup.tables import SetupTables
from gpuwise.setup.target import TargetFlags, from_flags


@pytest.fixture(scope="session")
def catalog() -> Any:
    return load_catalog(use_overrides=False, use_cache=False)


@pytest.fixture(scope="session")
def tables(catalog: Any) -> SetupTables:
    return SetupTables.from_catalog(catalog)


def make_plan(
    catalog: Any, tables: SetupTables, stack: str, flags: dict[str, Any], **kw: Any
) -> Plan:
    """The plan for `stack` on a target described like the command-line flags."""
    target = from_flags(TargetFlags(**flags), catalog, "3.11")
    return resolve(tables, target, stack, **kw)
