"""A plan's cost over time: the cheapest fully priced own option against the cheapest rental,
month by month, with the month owning becomes cheaper (pure: the plan is all it reads).

The result has the shape of `gpuwise cost --json`'s chart part (`chart`, `options`, `inputs`,
`currency`), so the one chart drawer (render/chart.py) draws both.
"""

from __future__ import annotations

import math

from gpuwise.advise.evaluate import Option, incomplete_capex, machines
from gpuwise.advise.outcome import Plan, hours_per_day_of
from gpuwise.cost.compare import BREAK_EVEN_SEARCH_MONTHS
from gpuwise.cost.own import own_cost
from gpuwise.cost.rent import rent_cost
from gpuwise.cost.report_model import Chart, Timeline, TimelineInputs, TimelineOption


def _cost_at(o: Option, month: int) -> float:
    """The option's total had the project stopped after `month` months (all its machines)."""
    c = o.candidate
    if o.own_spec is not None:
        cost = own_cost(o.own_spec, o.busy_hours_per_month, month)
    else:
        assert o.rent_spec is not None and o.usage is not None
        cost = rent_cost(o.rent_spec, o.busy_hours_per_month, month, o.usage)
    kept = _cost_at(o.beside, month) if o.beside is not None else 0.0  # owned, serving beside
    return machines(cost, c.nodes, c.kind == "own").total + kept


def _described(o: Option) -> TimelineOption:
    """What a legend needs to name the option (the naming fields of a `cost` bill)."""
    c = o.candidate
    return TimelineOption(
        label=c.label,
        kind="own" if c.kind == "own" else "rent",
        gpu=c.gpu.id,
        count=c.cards or c.count,
        owned=c.already_owned,
        platform=o.platform or "consumer",
        provider=c.provider.id if c.provider else None,
        instance=c.offer.instance if c.offer else None,
        billing=c.billing,
        total=round(o.cost.total, 2),
    )


def plan_timeline(plan: Plan) -> Timeline | None:
    """Cumulative cost per month of the best own and best rent options; None when the plan
    ranked neither. A break-even month is marked where owning catches up within ten years."""
    own = next(
        (o for o in plan.options if o.candidate.kind == "own" and not incomplete_capex(o)), None
    )
    rent = next((o for o in plan.options if o.candidate.kind == "rent"), None)
    chosen = [o for o in (own, rent) if o is not None]
    if not chosen:
        return None
    full = {
        o.candidate.label: [_cost_at(o, m) for m in range(1, BREAK_EVEN_SEARCH_MONTHS + 1)]
        for o in chosen
    }
    marks: dict[str, int] = {}
    if own is not None and rent is not None:
        pairs = zip(full[own.candidate.label], full[rent.candidate.label], strict=True)
        month = next((m for m, (a, b) in enumerate(pairs, start=1) if a <= b), None)
        if month is not None:
            marks[rent.candidate.label] = month
    months = plan.scenario.months
    horizon = min(BREAK_EVEN_SEARCH_MONTHS, max(math.ceil(months), *marks.values(), 1))
    chart = Chart(
        months=list(range(1, horizon + 1)),
        series={k: [round(v, 2) for v in vals[:horizon]] for k, vals in full.items()},
        break_even_months=marks,
        own=own.candidate.label if own is not None else None,
    )
    return Timeline(
        currency=plan.currency,
        inputs=TimelineInputs(months=months, hours_per_day=round(hours_per_day_of(chosen[0]), 1)),
        options=[_described(o) for o in chosen],
        chart=chart,
    )
