"""Every scenario in examples/ is a valid scenario the planner answers (the files users copy)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
import yaml

from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog

EXAMPLES = sorted((Path(__file__).parents[1] / "examples").glob("*.yaml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_an_example_scenario_is_answered(path: Path) -> None:
    data = yaml.safe_load(path.read_text("utf-8"))
    plan = make_plan(load_catalog(), parse_scenario(data, path.stem), dt.date(2026, 12, 7))
    assert plan.options, (path.name, plan.suggestions)
    assert plan.options[0].cost.total > 0
