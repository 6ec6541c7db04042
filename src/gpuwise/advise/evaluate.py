"""Price and time one candidate for the scenario: size the job, count the hours, cost them."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from gpuwise.advise.candidates import Candidate
from gpuwise.advise.scenario import Scenario
from gpuwise.advise.sizing import Sized
from gpuwise.catalog import Catalog
from gpuwise.cost import CostOption, OwnSpec, RentSpec, RentUsage, own_cost, rent_cost
from gpuwise.cost.model import busy_hours_per_month
from gpuwise.cost.resolve import Context, OwnOptions, resolve_own, resolve_rent
from gpuwise.errors import UserError


@dataclass
class Option:
    """A priced, timed candidate and what makes it risky or infeasible."""

    candidate: Candidate
    sized: Sized
    cost: CostOption
    busy_hours_per_month: float
    time_hours: float | None
    stale_prices: int = 0
    own_spec: OwnSpec | None = None
    rent_spec: RentSpec | None = None
    usage: RentUsage | None = None
    risks: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)
    blockers: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    pareto: bool = False

    @property
    def feasible(self) -> bool:
        """No hard constraint broken (budget, deadline, throughput, framework)."""
        return not self.blockers


def usage_hours(s: Scenario, sized: Sized) -> tuple[float, float | None]:
    """(busy hours a month, hours of one training run or None when serving)."""
    w = s.workload
    if w.kind == "train" and w.train_tokens() > 0 and sized.hours_per_run:
        return w.runs_per_month * sized.hours_per_run, sized.hours_per_run
    return busy_hours_per_month(s.hours_per_day), None


def rent_usage(s: Scenario, sized: Sized) -> RentUsage:
    """Storage and traffic a rental needs: the scenario's, else the weights plus the data set
    (token ids as 4-byte integers) kept on a cloud disk."""
    w = s.workload
    weights_gb = sized.memory.breakdown["weights"] / 1e9 * sized.count
    data_gb = s.data_gb or weights_gb + (w.train_tokens() * 4 / 1e9 if w.kind == "train" else 0.0)
    return RentUsage(
        data_gb=math.ceil(data_gb),
        egress_gb_per_month=s.egress_gb_per_month,
        checkpoint_min=s.checkpoint_min,
    )


def price(cat: Catalog, ctx: Context, s: Scenario, c: Candidate, sized: Sized) -> Option | None:
    """Cost the candidate over the project; None when the catalog cannot price it."""
    busy, run_hours = usage_hours(s, sized)
    try:
        if c.kind == "own":
            own = resolve_own(cat, ctx, c.gpu.id, c.count, _own_options(s, c))
            cost = own_cost(own.spec, busy, s.months)
            if c.unpriced_card:  # counted as unpriced, never as free
                cost = replace(cost, unpriced=("cards", *cost.unpriced))
            stale = sum(p.stale for p in own.prices)
            return Option(c, sized, cost, busy, run_hours, stale, own_spec=own.spec)
        assert c.provider and c.offer
        rent = resolve_rent(cat, ctx, f"{c.provider.id}:{c.offer.instance}:{c.billing}")
        usage = rent_usage(s, sized)
        cost = rent_cost(rent.spec, busy, s.months, usage)
        stale = sum(p.stale for p in rent.prices[:1])
        return Option(c, sized, cost, busy, run_hours, stale, rent_spec=rent.spec, usage=usage)
    except UserError:
        return None


def _own_options(s: Scenario, c: Candidate) -> OwnOptions | None:
    """Owned hardware is sunk cost; an existing PC takes one consumer card without a new host."""
    if c.already_owned:
        return OwnOptions(card_price=0.0, host_price=0.0)
    host = 0.0 if s.owns_host and c.count == 1 and c.gpu.gpu_class == "consumer" else None
    card = 0.0 if c.unpriced_card else None
    if host is None and card is None:
        return None
    return OwnOptions(card_price=card, host_price=host)


def check_constraints(s: Scenario, o: Option, budget_in_ctx: float | None) -> None:
    """Hard limits: budget, deadline, throughput target (reasons kept for the report)."""
    w = s.workload
    if budget_in_ctx is not None and s.budget is not None:
        spend = o.cost.monthly if s.budget.per == "month" else o.cost.total
        if spend > budget_in_ctx:
            o.blockers.append(("plan.block_budget", {"spend": spend, "budget": budget_in_ctx}))
    if s.deadline_days and o.time_hours and o.time_hours > s.deadline_days * 24:
        o.blockers.append(("plan.block_deadline", {"hours": o.time_hours, "days": s.deadline_days}))
    if (
        w.kind != "train"
        and w.target_tokens_per_s
        and o.sized.speed_known
        and o.sized.tokens_per_s < w.target_tokens_per_s
    ):
        o.blockers.append(
            (
                "plan.block_throughput",
                {"tps": o.sized.tokens_per_s, "target": w.target_tokens_per_s},
            )
        )
    if o.busy_hours_per_month > 730:
        o.blockers.append(("plan.block_hours", {"hours": o.busy_hours_per_month}))
