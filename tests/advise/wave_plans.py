"""What the blind-wave regression tests share: the day they plan on and the one call."""

from __future__ import annotations

import datetime as dt
from typing import Any

from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import Catalog

TODAY = dt.date(2026, 12, 7)


def plan_of(cat: Catalog, doc: dict[str, Any]) -> Any:
    """The plan of a scenario written as a dict (the YAML a user writes), on TODAY."""
    return make_plan(cat, parse_scenario(doc, "t"), TODAY)
