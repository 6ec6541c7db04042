"""The memory estimator against published measurements (tests/data/memory_cases.toml).

Each case cites its source and quote; gpuwise must land within the case's tolerance (25% unless
the case says why it allows more), and the median error must stay at or under 10%.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

import pytest
import tomllib

from gpuwise.catalog import load_catalog
from gpuwise.estimate.cases import run_case
from gpuwise.estimate.constants import MemoryConstants

CASES_FILE = Path(__file__).parent.parent / "data" / "memory_cases.toml"
CASES: list[dict[str, Any]] = tomllib.loads(CASES_FILE.read_text(encoding="utf-8"))["case"]
ACTIVE = [c for c in CASES if "excluded" not in c]


@pytest.fixture(scope="module")
def env():  # type: ignore[no-untyped-def]
    cat = load_catalog(use_cache=False)
    return cat, MemoryConstants.from_catalog(cat)


def test_cases_are_cited_and_varied() -> None:
    assert len(ACTIVE) >= 30
    for c in CASES:
        assert c["url"].startswith("https://") and c["quote"] and c["retrieved"], c["id"]
    modes = {c["mode"] for c in ACTIVE}
    assert {"inference", "full", "lora", "qlora"} <= modes
    families = {c["model"].split("/")[1].split("-")[0].lower() for c in ACTIVE}
    assert len(families) >= 4, families


@pytest.mark.parametrize("case", ACTIVE, ids=[c["id"] for c in ACTIVE])
def test_case_within_tolerance(env, case: dict[str, Any]) -> None:  # type: ignore[no-untyped-def]
    cat, consts = env
    result = run_case(cat, consts, case)
    tolerance = float(case.get("tolerance", 0.25))
    assert abs(result.error) <= tolerance, (
        f"{case['id']}: measured {result.measured_gb} vs estimated {result.estimated_gb:.2f}"
    )


def test_median_error(env) -> None:  # type: ignore[no-untyped-def]
    cat, consts = env
    errors = [abs(run_case(cat, consts, c).error) for c in ACTIVE]
    assert statistics.median(errors) <= 0.10


def test_excluded_cases_say_why() -> None:
    for c in CASES:
        if "excluded" in c:
            assert len(c["excluded"]) > 40, c["id"]
        if "tolerance" in c:
            assert len(c.get("tolerance_reason", "")) > 40, c["id"]
