"""One-off jobs are billed as one-off jobs: committed billing covers the months the work needs
(issue 26, item 9); break-even figures never read -0.0 (item 8)."""

from __future__ import annotations

import pytest

from gpuwise.cost.compare import break_even_hours
from gpuwise.cost.rent import HiddenRates, RentSpec, RentUsage, committed_months, rent_cost


def monthly(price: float = 730.0) -> RentSpec:
    return RentSpec(
        label="x:y:monthly",
        provider="x",
        instance="y",
        gpu_id="rtx-4090",
        gpu_count=1,
        billing="monthly",
        price=price,
        per="month",
        currency="USD",
        hidden=HiddenRates(),
    )


def test_2000_hour_run_pays_three_months_not_one() -> None:
    cost = rent_cost(monthly(), busy_hours_per_month=2000.0, months=1, usage=RentUsage())
    assert cost.details["periods"] == 3
    assert cost.items["compute"] == pytest.approx(3 * 730.0)


def test_one_off_run_in_a_year_pays_one_month_of_a_monthly_bill() -> None:
    """A single 40-hour run in a 12-month project needs one month, not twelve."""
    busy = 40.0 / 12
    cost = rent_cost(monthly(), busy, months=12, usage=RentUsage(), active_months=1)
    assert cost.details["periods"] == 1
    every = rent_cost(monthly(), busy, months=12, usage=RentUsage())
    assert every.details["periods"] == 12  # without the schedule: every month


def test_committed_months_never_below_the_busy_hours() -> None:
    assert committed_months(busy_hours=1460.0, months=12, active_months=1) == pytest.approx(2.0)
    assert committed_months(busy_hours=10.0, months=12, active_months=None) == 12


def test_break_even_never_at_negative_zero() -> None:
    """Equal at no use: one side wins at every use, never 'breaks even at -0.0 h/day'."""
    hours, always = break_even_hours(lambda h: 100.0, lambda h: 100.0 + 5.0 * h)
    assert hours is None and always == "own"
    hours, always = break_even_hours(lambda h: 100.0 + 5.0 * h, lambda h: 100.0)
    assert hours is None and always == "rent"
    hours, _ = break_even_hours(lambda h: 200.0, lambda h: 100.0 + 10.0 * h)
    assert hours == pytest.approx(10.0)
