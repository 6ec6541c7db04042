"""Owning against renting: break-even hours per day, break-even month, cumulative curves.

Both costs are linear in the hours of use (energy and hourly rent grow with hours; purchase,
storage and committed billing do not), so the break-even use is the root of a straight line
through the cost difference at 0 and 24 hours a day. The break-even month is the first month
at which owning, net of what the cards would fetch if sold then, has cost no more than renting.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from gpuwise.cost.model import CostOption, busy_hours_per_month
from gpuwise.cost.own import OwnSpec, own_cost
from gpuwise.cost.rent import RentSpec, RentUsage, rent_cost

BREAK_EVEN_SEARCH_MONTHS = 120
"""How far (months) the break-even month is searched: ten years, past any GPU's useful life."""


@dataclass(frozen=True)
class BreakEven:
    """Where owning and one rental option cost the same.

    `hours_per_day`: the daily use above which owning is cheaper over the horizon (None when
    one side wins at every use; `cheaper_always` then says which). `months`: the first month
    at which owning has cost no more than renting at the given use (None within the search).
    """

    hours_per_day: float | None
    months: int | None
    cheaper_always: str | None = None

    def as_dict(self) -> dict[str, object]:
        """JSON shape."""
        return {
            "hours_per_day": self.hours_per_day,
            "months": self.months,
            "cheaper_always": self.cheaper_always,
        }


def break_even_hours(
    cost_own: Callable[[float], float], cost_rent: Callable[[float], float]
) -> tuple[float | None, str | None]:
    """Hours/day where the two (linear) totals meet, or which side wins at any use.

    Returns (hours, None) when they cross strictly inside 0–24 h/day, else (None,
    "own"|"rent"|"equal"): a crossing at 0 h/day means one side wins at any use, never
    "breaks even at 0 h/day" (or -0.0, the sign of a zero difference).
    """
    d0 = cost_rent(0.0) - cost_own(0.0)
    d24 = cost_rent(24.0) - cost_own(24.0)
    if d0 == d24:
        return (None, "equal" if d0 == 0 else ("own" if d0 > 0 else "rent"))
    root = 24.0 * -d0 / (d24 - d0)
    if root <= 0.0:  # equal at no use at all: above it one side wins at every use
        return (None, "own" if d24 > 0 else "rent")
    if root >= 24.0:
        return (None, "own" if d0 > 0 else "rent")
    return (root, None)


def break_even(
    own: OwnSpec,
    rent: RentSpec,
    hours_per_day: float,
    months: float,
    usage: RentUsage,
    idle_hours_per_day: float | None = None,
    scales: tuple[float, float] = (1.0, 1.0),
    days_per_week: float = 7.0,
) -> BreakEven:
    """Break-even use over the horizon and break-even month at the given use. `scales`
    multiply the owning and renting totals: a planner whose bills carry items the specs do
    not (a public API's spare replica, a marketplace standby) scales each so that at the
    horizon they equal its own totals, and the break-even agrees with them (blind w22-02:
    owning $23k cheaper over 12 months yet "breaks even in month 25"). Hours a day are those
    of the `days_per_week` days in use (the break-even of a weekday service is in hours of a
    working day)."""
    own_scale, rent_scale = scales

    def busy_of(h: float) -> float:
        return busy_hours_per_month(h, days_per_week)

    def idle(h: float) -> float | None:
        return None if idle_hours_per_day is None else busy_hours_per_month(idle_hours_per_day)

    def own_total(h: float) -> float:
        return own_cost(own, busy_of(h), months, idle(h)).total * own_scale

    def rent_total(h: float) -> float:
        return rent_cost(rent, busy_of(h), months, usage).total * rent_scale

    hours, always = break_even_hours(own_total, rent_total)
    busy = busy_of(hours_per_day)
    idle_m = idle(hours_per_day)

    def cheaper(m: int) -> bool:
        owning = own_cost(own, busy, m, idle_m).total * own_scale
        return owning <= rent_cost(rent, busy, m, usage).total * rent_scale

    return BreakEven(hours, _break_even_month(cheaper, months), always)


def _break_even_month(cheaper: Callable[[int], bool], months: float) -> int | None:
    """The month from which owning stays cheaper to the end of the project, or past it the
    first month it is cheaper. A card's resale is worth most in its first months, so owning
    can be cheaper for a month or two and dearer by the horizon: that first month is no
    break-even (a 12-month plan read "breaks even in month 1" beside owning's higher total)."""
    horizon = max(1, math.ceil(months - 1e-9))
    within = [cheaper(m) for m in range(1, horizon + 1)]
    month: int | None = None
    for m in range(horizon, 0, -1):  # the earliest month of the final cheaper run
        if not within[m - 1]:
            break
        month = m
    if month is not None:
        return month
    return next((m for m in range(horizon + 1, BREAK_EVEN_SEARCH_MONTHS + 1) if cheaper(m)), None)


def cumulative(cost_at: Callable[[int], CostOption], months: int) -> list[float]:
    """Total cost had the project stopped after 1, 2, … `months` months."""
    return [cost_at(m).total for m in range(1, months + 1)]
