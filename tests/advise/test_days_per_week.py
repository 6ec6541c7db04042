"""`days_per_week`: a service run on weekdays only is billed and powered for those days.

Office hours (10 h on 5 days) are 217 hours a month, not the 304 of 10 h on every day of an
average month; hourly rentals and owned power scale with them, and a break-even between owning
and renting is said in hours of the days in use.
"""

from __future__ import annotations

import datetime as dt

import pytest

from gpuwise.advise.outcome import break_even_of
from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.cost.model import DAYS_PER_MONTH, busy_hours_per_month
from gpuwise.errors import UserError

TODAY = dt.date(2026, 12, 2)


def _scenario(days: float) -> dict[str, object]:
    return {
        "workload": {"kind": "serve", "model": "qwen3-8b", "concurrency": 4},
        "months": 12,
        "hours_per_day": 10,
        "days_per_week": days,
        "region": "us",
        "currency": "USD",
    }


def test_busy_hours_count_only_the_days_in_use() -> None:
    assert busy_hours_per_month(10) == pytest.approx(10 * DAYS_PER_MONTH)
    assert busy_hours_per_month(10, 5) == pytest.approx(10 * DAYS_PER_MONTH * 5 / 7)
    assert busy_hours_per_month(10, 5) == pytest.approx(217.26, abs=0.01)


def test_a_weekday_rental_is_billed_five_sevenths_of_every_day() -> None:
    cat = load_catalog()
    week = make_plan(cat, parse_scenario(_scenario(5), "weekdays"), TODAY)
    every = make_plan(cat, parse_scenario(_scenario(7), "every-day"), TODAY)
    rent = next(
        o for o in week.options if o.candidate.kind == "rent" and o.cost.items.get("compute")
    )
    twin = next(o for o in every.options if o.candidate.label == rent.candidate.label)
    assert rent.busy_hours_per_month == pytest.approx(twin.busy_hours_per_month * 5 / 7)
    assert rent.cost.items["compute"] == pytest.approx(twin.cost.items["compute"] * 5 / 7, rel=1e-6)
    assert (
        "plan.note_days_per_week",
        {"hours": 10.0, "days": 5.0, "busy": pytest.approx(217.26, abs=0.01)},
    ) in week.assumptions


def test_break_even_is_in_hours_of_the_days_in_use() -> None:
    """The same pair of options meets at h hours of each weekday where it meets at h x 5/7 of
    every day: the crossing is one number of busy hours a month."""
    cat = load_catalog()
    plan = make_plan(cat, parse_scenario(_scenario(5), "weekdays"), TODAY)
    own = next(o for o in plan.options if o.candidate.kind == "own" and o.own_spec)
    rent = next(o for o in plan.options if o.candidate.kind == "rent" and o.rent_spec)
    week = break_even_of(own, rent, 12, days_per_week=5)
    daily = break_even_of(own, rent, 12, days_per_week=7)
    if week.hours_per_day is None or daily.hours_per_day is None:
        pytest.skip("this pair has no crossing inside a day")
    assert week.hours_per_day == pytest.approx(daily.hours_per_day * 7 / 5, rel=1e-6)


@pytest.mark.parametrize("days", [0, 8, -1])
def test_days_per_week_outside_a_week_is_refused(days: float) -> None:
    with pytest.raises(UserError, match=r"days_per_week|a week has 7 days"):
        parse_scenario(_scenario(days), "bad")
