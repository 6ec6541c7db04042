"""The cost of renting one offer in one billing mode over a horizon, hidden costs included.

- hourly modes (on-demand, spot): price x hours used, plus for spot the expected rework
  (gpuwise.cost.spot) as a separate item; where the usage says how long a session takes to
  start (cost.session), each session (a run, a spot restart) bills that time as its own item;
- committed modes (monthly, yearly, reserved, savings plans): whole periods, whatever the use,
  as many as the work really needs: the months in which it runs (a one-off 40-hour job needs
  one month, not the project's twelve), and never fewer than its busy hours fill (a 2,000-hour
  run needs three months of a monthly bill, not one);
- the data set on block and/or object storage for the whole horizon; egress above the free
  allowance; snapshots/images; a public IP and optionally a NAT gateway, per hour the instance
  exists (hours used for hourly modes, every hour for committed ones).

A rate the provider does not publish (None) makes that item "unpriced", never free.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from gpuwise.catalog.schema_cloud import HOURS_PER_MONTH
from gpuwise.cost.model import CostOption
from gpuwise.cost.spot import SpotRisk, expected_interruptions, rework_hours

COMMIT_MONTHS: dict[str, int] = {
    "monthly": 1,
    "yearly": 12,
    "reserved-1y": 12,
    "savings-plan-1y": 12,
    "reserved-3y": 36,
    "savings-plan-3y": 36,
}
"""Billing modes paid for whole periods of this many months, used or not."""

HIDDEN_ITEMS: tuple[str, ...] = (
    "block_storage",
    "object_storage",
    "egress",
    "snapshots",
    "public_ip",
    "nat_gateway",
    "nat_traffic",
)
"""The items a rental adds beside its GPU hours (`_hidden_items`): storage, traffic, snapshots
and addresses, what the plan's rule hidden-costs adds up."""

_PER_HOURS = {"hour": 1.0, "month": HOURS_PER_MONTH, "year": HOURS_PER_MONTH * 12}


@dataclass(frozen=True)
class HiddenRates:
    """Hidden-cost rates in the spec's currency; None = not published (unpriced)."""

    block_per_gb_month: float | None = None
    object_per_gb_month: float | None = None
    egress_per_gb: float | None = None
    egress_free_gb_per_month: float = 0.0
    snapshot_per_gb_month: float | None = None
    public_ip_per_hour: float | None = None
    nat_per_hour: float | None = None
    nat_per_gb: float | None = None


@dataclass(frozen=True)
class RentSpec:
    """Pre-resolved inputs for renting one offer in one billing mode (money in `currency`)."""

    label: str
    provider: str
    instance: str
    gpu_id: str
    gpu_count: float
    billing: str
    price: float
    per: Literal["hour", "month", "year"]
    currency: str
    hidden: HiddenRates
    spot: SpotRisk | None = None
    tail_per_hour: float | None = None
    """The same offer's on-demand price per hour, for the months after the last whole term of
    a commitment longer than a month (None: none published, or an hourly or monthly mode)."""

    @property
    def price_per_hour(self) -> float:
        """The instance price spread over every hour of its period (a month = 730 h)."""
        return self.price / _PER_HOURS[self.per]


@dataclass(frozen=True)
class RentUsage:
    """What the project stores and moves, besides GPU hours."""

    data_gb: float = 0.0
    storage: Literal["block", "object", "both"] = "block"
    egress_gb_per_month: float = 0.0
    snapshot_gb: float = 0.0
    checkpoint_min: float = 30.0
    public_ip: bool = True
    nat: bool = False
    session_hours: float = 0.0
    """Start-up and model download of one session (cost.session); 0: not modelled."""
    sessions: float = 0.0
    """Sessions over the horizon billed by the hour (one per run; spot restarts add theirs)."""
    disk_while_running: bool = False
    """The disk lives only while the instance runs (a single one-off job: created with the
    instance, deleted after), so it bills the running hours, not the whole horizon."""


def committed_periods(months: float, period_months: int) -> int:
    """Whole commitment periods needed to cover `months` (a started period is paid in full)."""
    return max(1, math.ceil(months / period_months - 1e-9))


def committed_months(busy_hours: float, months: float, active_months: float | None) -> float:
    """Months a committed rental must cover: those in which the work runs (all of them unless
    told), and at least as many as its busy hours fill."""
    needed = months if active_months is None else min(months, active_months)
    return max(needed, busy_hours / HOURS_PER_MONTH)


def _tail_on_demand(
    spec: RentSpec, needed: float, period: int, busy_per_month: float
) -> float | None:
    """What the months after the last whole term cost on demand (their busy hours at the
    offer's hourly price); None where there is no such remainder or no hourly price."""
    if spec.tail_per_hour is None or period <= 1:
        return None
    whole = math.floor(needed / period + 1e-9)
    rest = needed - whole * period
    if whole < 1 or rest <= 1e-9:
        return None
    return spec.tail_per_hour * busy_per_month * rest


def _hidden_items(
    h: HiddenRates,
    usage: RentUsage,
    months: float,
    running_hours: float,
    items: dict[str, float],
    unpriced: list[str],
) -> None:
    """The hidden costs the use incurs: storage, egress, snapshots, public IP, NAT. A rate
    the provider does not publish makes its item unpriced (never free)."""

    def add(name: str, rate: float | None, quantity: float) -> None:
        if quantity <= 0:
            return
        if rate is None:
            unpriced.append(name)
        else:
            items[name] = rate * quantity

    held = min(months, running_hours / HOURS_PER_MONTH) if usage.disk_while_running else months
    gb_months = usage.data_gb * held  # a 14 h job's disk is not kept a month (blind w65-04)
    if usage.storage in ("block", "both"):
        add("block_storage", h.block_per_gb_month, gb_months)
    if usage.storage in ("object", "both"):
        add("object_storage", h.object_per_gb_month, gb_months)
    if usage.egress_gb_per_month > 0:
        if h.egress_per_gb is None:
            unpriced.append("egress")
        else:  # billed above the free allowance; within it the item shows as 0
            paid_gb = max(0.0, usage.egress_gb_per_month - h.egress_free_gb_per_month) * months
            items["egress"] = h.egress_per_gb * paid_gb
    add("snapshots", h.snapshot_per_gb_month, usage.snapshot_gb * months)
    if usage.public_ip:
        add("public_ip", h.public_ip_per_hour, running_hours)
    if usage.nat:
        add("nat_gateway", h.nat_per_hour, running_hours)
        add("nat_traffic", h.nat_per_gb, usage.egress_gb_per_month * months)


def _hourly_extras(
    spec: RentSpec,
    usage: RentUsage,
    busy: float,
    items: dict[str, float],
    details: dict[str, float],
) -> float:
    """Hours billed besides the work: spot rework and each session's start-up and download.

    Where sessions are modelled, a spot restart is one more session: its start-up is billed
    in `session_overhead`, so the rework item keeps only the work lost since the checkpoint
    (never counting the restart twice)."""
    extra = 0.0
    restarts = 0.0
    if spec.spot:
        restarts = expected_interruptions(busy, spec.spot)
        risk = spec.spot
        if usage.session_hours > 0:
            risk = SpotRisk(risk.interruptions_per_hour, 0.0)
        extra = rework_hours(busy, risk, usage.checkpoint_min)
        items["spot_rework"] = spec.price_per_hour * extra
        details["interruptions"] = restarts
        details["rework_hours"] = extra
    if usage.session_hours > 0:
        sessions = max(1.0, usage.sessions) + restarts
        overhead = usage.session_hours * sessions
        items["session_overhead"] = spec.price_per_hour * overhead
        details["sessions"], details["session_hours"] = sessions, usage.session_hours
        extra += overhead
    return extra


def rent_cost(
    spec: RentSpec,
    busy_hours_per_month: float,
    months: float,
    usage: RentUsage,
    active_months: float | None = None,
) -> CostOption:
    """Itemised cost of renting over `months` for `busy_hours_per_month` of work.

    `active_months`: the months in which the work runs (sparse one-off runs need fewer than
    the horizon); committed billing pays whole periods over those only.
    """
    items: dict[str, float] = {}
    unpriced: list[str] = []
    busy = busy_hours_per_month * months
    details: dict[str, float] = {"busy_hours": busy}
    period = COMMIT_MONTHS.get(spec.billing)
    if period is None:
        items["compute"] = spec.price_per_hour * busy
        running = busy + _hourly_extras(spec, usage, busy, items, details)
    else:
        if usage.session_hours > 0:  # kept running: one start-up, inside the paid periods
            details["sessions"], details["session_hours"] = 1.0, usage.session_hours
        needed = committed_months(busy, months, active_months)
        periods = committed_periods(needed, period)
        term = spec.price_per_hour * HOURS_PER_MONTH * period
        items["compute"] = term * periods
        details["periods"] = periods
        tail = _tail_on_demand(spec, needed, period, busy / max(needed, 1e-9))
        if tail is not None and tail < term:  # the last term's months rented by the hour
            items["compute"] = term * (periods - 1) + tail
            details["periods"] = periods - 1
            details["tail_on_demand"] = tail
        running = HOURS_PER_MONTH * needed
    details["billed_hours"] = running
    _hidden_items(spec.hidden, usage, months, running, items, unpriced)
    return CostOption(
        label=spec.label,
        kind="rent",
        currency=spec.currency,
        months=months,
        items=items,
        unpriced=tuple(unpriced),
        details=details,
    )
