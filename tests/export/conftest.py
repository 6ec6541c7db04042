"""Plans to export: the built-in personas and two training scenarios that spread over several
cards and machines, planned once per session on the real catalog."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from gpuwise.advise.plan import Plan, make_plan
from gpuwise.advise.scenario import load_scenario
from gpuwise.catalog import load_catalog
from gpuwise.export import build
from gpuwise.export.common import Export
from gpuwise.export.tables import ExportTables
from gpuwise.export.view import ExportView, view_of

PERSONAS = Path(__file__).parents[2] / "src" / "gpuwise" / "advise" / "personas"
SCENARIOS = Path(__file__).parent / "scenarios"
NAMES = ("example", "individual", "small-team", "enterprise-domestic", "cost-extreme")


@pytest.fixture(scope="session")
def catalog() -> Any:
    return load_catalog(use_overrides=False, use_cache=False)


@pytest.fixture(scope="session")
def tables(catalog: Any) -> ExportTables:
    return ExportTables.from_catalog(catalog)


@pytest.fixture(scope="session")
def plans(catalog: Any) -> dict[str, Plan]:
    """name → plan (personas by name, scenarios by file stem)."""
    paths = {n: PERSONAS / f"{n}.yaml" for n in NAMES}
    paths.update({p.stem: p for p in SCENARIOS.glob("*.yaml")})
    today = dt.date.today()
    return {name: make_plan(catalog, load_scenario(path), today) for name, path in paths.items()}


@pytest.fixture(scope="session")
def export(catalog: Any, plans: dict[str, Plan]) -> Callable[..., tuple[ExportView, Export]]:
    """export(plan name, target, option=1) → (view, files)."""

    def run(name: str, target: str, option: int = 1) -> tuple[ExportView, Export]:
        return build(catalog, plans[name], option, target)

    return run


@pytest.fixture(scope="session")
def view(catalog: Any, plans: dict[str, Plan]) -> Callable[..., ExportView]:
    """view(plan name, option=1, **changes): an option's view, fields replaced where a test
    needs a layout the planner did not pick (ZeRO-2, two machines…)."""

    def make(name: str, option: int = 1, **changes: Any) -> ExportView:
        p = plans[name]
        v = view_of(catalog, p.scenario, p.options[option - 1], option, p.currency)
        return replace(v, **changes)

    return make


def first(plan: Plan, test: Callable[[Any], bool]) -> int:
    """The number of the first ranked option that passes `test` (skip when none does)."""
    for i, o in enumerate(plan.options, 1):
        if test(o):
            return i
    pytest.skip("the plan ranks no such option")
