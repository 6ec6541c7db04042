"""What a plan is, apart from how it is made: the `Plan` record and the sums the rules read.

Kept apart from `plan.py` so that the rules (`fired.py`) and the fixes (`fixes.py`), which
read a finished plan, need not import the planner that calls them: the advise package has no
import cycle (tests/test_architecture.py checks cycles between modules).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpuwise.advise.candidates import Candidate
from gpuwise.advise.evaluate import Option
from gpuwise.advise.report_model import Answers
from gpuwise.advise.scenario import Scenario
from gpuwise.catalog.precision import SupportVerdict
from gpuwise.catalog.schema_cloud import HOURS_PER_MONTH
from gpuwise.cost.compare import BreakEven, break_even
from gpuwise.cost.model import DAYS_PER_MONTH, busy_hours_per_month
from gpuwise.cost.own import own_cost
from gpuwise.cost.rent import rent_cost


@dataclass
class Plan:
    """The ranked options, the three answers and the reasons."""

    scenario: Scenario
    options: list[Option]
    infeasible: list[Option]
    answers: Answers
    rules: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    dropped: dict[str, int] = field(default_factory=dict)
    dropped_examples: dict[str, list[str]] = field(default_factory=dict)
    suggestions: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    unfit: list[tuple[str, float]] = field(default_factory=list)
    refused: dict[str, list[str]] = field(default_factory=dict)
    refused_why: dict[str, SupportVerdict] = field(default_factory=dict)
    set_aside: list[Option] = field(default_factory=list)
    unchecked: list[Option] = field(default_factory=list)
    assumptions: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    currency: str = "CNY"
    owned_unfit: list[tuple[str, int, float]] = field(default_factory=list)
    """Hardware the user owns that cannot run the job: (gpu, cards, GB per card)."""
    small_rentals: list[Candidate] = field(default_factory=list)
    """Rented machines too small to hold a training job alone or to be joined (search.py)."""


def hours_per_day_of(o: Option) -> float:
    """An option's busy hours a month as hours per day."""
    return o.busy_hours_per_month / DAYS_PER_MONTH


def break_even_of(
    own: Option, rent: Option, months: float, days_per_week: float = 7.0
) -> BreakEven:
    """Break-even between an owning and a renting option at the owning option's use, in
    hours of each of the `days_per_week` days in use."""
    assert own.own_spec and rent.rent_spec and rent.usage
    h = hours_per_day_of(own) * 7.0 / days_per_week
    scales = (_scale(own, months, h, days_per_week), _scale(rent, months, h, days_per_week))
    return break_even(
        own.own_spec,
        rent.rent_spec,
        h,
        months,
        rent.usage,
        scales=scales,
        days_per_week=days_per_week,
    )


def _scale(o: Option, months: float, hours_per_day: float, days_per_week: float) -> float:
    """The option's total over what its spec alone bills at the horizon (items the planner
    added: a spare replica, a standby, a share of a rack), 1 where either is not positive."""
    busy = busy_hours_per_month(hours_per_day, days_per_week)
    if o.own_spec is not None:
        base = own_cost(o.own_spec, busy, months).total
    else:
        assert o.rent_spec is not None and o.usage is not None
        base = rent_cost(o.rent_spec, busy, months, o.usage).total
    return o.cost.total / base if base > 0 and o.cost.total > 0 else 1.0


def break_even_runs(own: Option, rent: Option, runs_per_month: float) -> float | None:
    """Runs a month above which owning costs less: owning is fixed (hardware, upkeep, less
    resale) plus its electricity, which grows with the runs; renting grows with the runs as a
    whole. fixed + power × r/r0 = rent × r/r0 gives r = r0 × fixed / (rent − power); None where
    a run costs less on the owned side's power than rented, or where the break-even needs more
    runs than a month has hours for on the owned machine: never."""
    power = own.cost.items.get("electricity", 0.0)
    fixed = own.cost.total - power
    per_run_gap = rent.cost.total - power
    if per_run_gap <= 0:
        return None
    runs = round(runs_per_month * fixed / per_run_gap, 1) + 0.0
    if own.time_hours and runs * own.time_hours > HOURS_PER_MONTH:
        return None  # more runs than the owned machine has hours for: it never breaks even
    return runs  # (blind w50-02: "breaks even at 239.9 runs a month" of 11 hours each)
