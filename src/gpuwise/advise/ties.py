"""A cost tie is settled by what the money does not say: a run's end, a service's machines.

A training run or a batch (Workload.one_off) bought from options whose totals the plan cannot
tell apart (within the prices' own uncertainty, `price_uncertainty_fraction`) is not a choice
between two costs: it is a choice between two finish times at one cost. Twice the cards for half
the hours costs the same (cost ∝ cards × hours) and returns the result sooner; with a deadline,
the shorter run also keeps more slack at the long (p90) end of its error band, which is where
the plan checks deadlines (advise/margin.py). So among the options tied with the cheapest one,
in the same ranking tier, the one whose long-end hours are fewest ranks first, and the answer
says that the run time decided it (Answers.decided_by_time).

A service (no end) tied on cost is settled by the machines it runs on: seven single-card VMs
and two do the same job at the same price, but each machine is one more to patch, watch, fail
and page someone for, and the fewer, larger machines carry more copies' worth of headroom per
failure (blind w41-01: seven 4-bit L4 VMs ranked over two L40S ones 4% dearer). The one with
the fewest machines moves first, unless it runs a lower-bit format (below NEAR_LOSSLESS_BITS)
or meets the target only at its central estimate where the first does not, and the answer says
that the machine count decided it (Answers.decided_by_machines).

Hardware already owned keeps its place (nothing to buy or start wins a tie: ranking.rank_key);
only options of the same ownership as the first compete. Pure.
"""

from __future__ import annotations

from collections.abc import Callable

from gpuwise.advise.evaluate import Option
from gpuwise.advise.labels import option_label
from gpuwise.advise.margin import (
    NEAR_LOSSLESS_BITS,
    at_risk_of_missing,
    option_ranking_total,
    slow_hours,
)
from gpuwise.advise.report_model import MachineTie, TimeTie


def _rank_total(o: Option) -> float:
    return option_ranking_total(o)


def _long_hours(o: Option) -> float:
    """The hours a deadline is checked at: the p90 end of the run's band (the estimate
    without band data)."""
    assert o.time_hours is not None
    return slow_hours(o.sized, o.time_hours)


def _tied(options: list[Option], margin: float, tier: Callable[[Option], object]) -> list[Option]:
    """The timed options tied with the first on cost: same tier and ownership, a ranking total
    within `margin` of the first's."""
    first = options[0]
    limit = _rank_total(first) * (1 + margin)
    return [
        o
        for o in options
        if o.time_hours
        and o.sized.speed_known
        and tier(o) == tier(first)
        and o.candidate.already_owned == first.candidate.already_owned
        and _rank_total(o) <= limit
    ]


def shorter_run_first(
    options: list[Option], margin: float, tier: Callable[[Option], object]
) -> list[Option]:
    """The ranked options with the tied one that ends soonest at the long end of its band moved
    first (ties on time keep the cheaper); unchanged when the first option is untimed."""
    if len(options) < 2 or not options[0].time_hours or not options[0].sized.speed_known:
        return options
    tied = _tied(options, margin, tier)
    if len(tied) < 2:
        return options
    winner = min(tied, key=lambda o: (_long_hours(o), _rank_total(o)))
    if winner is options[0]:
        return options
    return [winner, *(o for o in options if o is not winner)]


def decided_by_time(
    options: list[Option],
    margin: float,
    tier: Callable[[Option], object],
    deadline_days: float | None,
) -> TimeTie | None:
    """What the answer says when the first option is not the cheapest of its tier but ends
    sooner than a cheaper tied one (shorter_run_first put it there); None otherwise."""
    if not options or not options[0].time_hours:
        return None
    first = options[0]
    cheaper = [
        o
        for o in options[1:]
        if o.time_hours
        and tier(o) == tier(first)
        and o.candidate.already_owned == first.candidate.already_owned
        and _rank_total(o) < _rank_total(first)
        and _rank_total(first) <= _rank_total(o) * (1 + margin)
        and _long_hours(o) > _long_hours(first)
    ]
    if not cheaper:
        return None
    other = min(cheaper, key=_rank_total)
    assert first.time_hours is not None and other.time_hours is not None
    return TimeTie(
        shorter=option_label(first),
        shorter_hours=round(first.time_hours, 1),
        shorter_long_hours=round(_long_hours(first), 1),
        cheaper=option_label(other),
        cheaper_hours=round(other.time_hours, 1),
        cheaper_long_hours=round(_long_hours(other), 1),
        margin=margin,
        deadline_hours=deadline_days * 24 if deadline_days else None,
    )


def machines_run(o: Option) -> int:
    """The machines an option runs: its nodes (rented instances, bought hosts or systems)
    and, for a public API's spare copy on machines of its own, that copy's machines."""
    spare = "failover_replica" in o.cost.items
    return max(1, o.candidate.nodes) + (max(1, o.sized.machines_per_replica) if spare else 0)


def fewer_machines_first(
    options: list[Option],
    margin: float,
    tier: Callable[[Option], object],
    bits: Callable[[str], float],
) -> list[Option]:
    """The ranked options of a service with the tied one that runs on the fewest machines moved
    first (ties on machines keep the cheaper), none of a lower-bit class or less sure of the
    target than the first; unchanged when nothing tied runs on fewer."""
    if len(options) < 2:
        return options
    first = options[0]
    winner = min(_fewer(options, margin, tier, bits), key=_machines_then_money, default=first)
    if winner is first:
        return options
    return [winner, *(o for o in options if o is not winner)]


def _machines_then_money(o: Option) -> tuple[int, float]:
    return (machines_run(o), option_ranking_total(o))


def _fewer(
    options: list[Option],
    margin: float,
    tier: Callable[[Option], object],
    bits: Callable[[str], float],
) -> list[Option]:
    """The options tied with the first on cost that run on fewer machines and give up neither
    format class nor sureness of the target."""
    first = options[0]
    limit = option_ranking_total(first) * (1 + margin)
    floor = min(bits(first.sized.quant), NEAR_LOSSLESS_BITS)
    first_risky = at_risk_of_missing(first.risks)
    return [
        o
        for o in options[1:]
        if tier(o) == tier(first)
        and o.candidate.already_owned == first.candidate.already_owned
        and option_ranking_total(o) <= limit
        and machines_run(o) < machines_run(first)
        and min(bits(o.sized.quant), NEAR_LOSSLESS_BITS) >= floor
        and (first_risky or not at_risk_of_missing(o.risks))
    ]


def decided_by_machines(
    options: list[Option], margin: float, tier: Callable[[Option], object]
) -> MachineTie | None:
    """What the answer says when the first option of a service is not the cheapest of its tier
    but runs on fewer machines than a cheaper tied one (fewer_machines_first put it there)."""
    if not options:
        return None
    first = options[0]
    cheaper = [
        o
        for o in options[1:]
        if tier(o) == tier(first)
        and o.candidate.already_owned == first.candidate.already_owned
        and option_ranking_total(o) < option_ranking_total(first)
        and option_ranking_total(first) <= option_ranking_total(o) * (1 + margin)
        and machines_run(o) > machines_run(first)
    ]
    if not cheaper:
        return None
    other = min(cheaper, key=option_ranking_total)
    return MachineTie(
        fewer=option_label(first),
        fewer_machines=machines_run(first),
        cheaper=option_label(other),
        cheaper_machines=machines_run(other),
        margin=margin,
    )
