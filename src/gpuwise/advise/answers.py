"""The three answers of a plan (buy or rent, which card, which cloud) from its ranked options.

A near tie between owning and renting is answered 'either', with what decides between them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from gpuwise.advise.evaluate import Option, caveated, incomplete_capex
from gpuwise.advise.labels import option_label
from gpuwise.advise.margin import at_risk_of_missing
from gpuwise.advise.outcome import break_even_of, break_even_runs
from gpuwise.advise.report_model import Answers, CloudAnswer, Either, Tie
from gpuwise.advise.ties import decided_by_machines, decided_by_time


def answers_of(
    options: list[Option],
    margin: float,
    months: float,
    tier: Callable[[Option], object] = lambda o: None,
    runs_per_month: float | None = None,
    deadline_days: float | None = None,
    days_per_week: float = 7.0,
) -> Answers:
    """buy_or_rent, vendor, card, cloud from the cheapest ranked options of each kind.

    Owning and renting within `margin` of each other (the prices' own uncertainty) make the
    answer 'either', with what decides between them: the daily use above which owning wins and
    the month before which renting does. 'either' only compares two fully priced options; a
    floor is never called the cheapest. A run or batch (`runs_per_month` given) ranked first
    for ending sooner than a cheaper tied one says so, and so does a service ranked first for
    running on fewer machines (advise/ties.py).
    """
    best = options[0] if options else None
    if best is None:
        return Answers(buy_or_rent=None, vendor=None, card=None)
    own = next((o for o in options if o.candidate.kind == "own" and not incomplete_capex(o)), None)
    rent = next((o for o in options if o.candidate.kind == "rent"), None)
    verdict: Literal["buy", "rent", "either"] = "buy" if best.candidate.kind == "own" else "rent"
    either = None
    if own and rent and not incomplete_capex(best):
        gap = abs(own.cost.total - rent.cost.total)
        if gap <= margin * min(own.cost.total, rent.cost.total):
            verdict, either = (
                "either",
                _deciders(own, rent, months, margin, runs_per_month, days_per_week),
            )
    cloud = None
    if verdict != "buy" and rent and rent.candidate.provider:
        ties = _rental_ties(options, rent, margin, tier)
        cloud = CloudAnswer(**_cloud(rent).model_dump(), ties=ties)
    c = best.candidate
    by_time, by_machines = None, None
    if runs_per_month is not None:
        by_time = decided_by_time(options, margin, tier, deadline_days)
    else:
        by_machines = decided_by_machines(options, margin, tier)
    count = c.cards * max(1, c.nodes) if c.cards else c.count  # every machine's cards
    replicas = max(1, best.sized.replicas)
    spare = round(count * best.spare_replicas / replicas) if best.spare_replicas else 0
    return Answers(
        buy_or_rent=verdict,
        vendor=c.gpu.vendor,
        card=c.gpu.id,
        count=count,
        spare_count=spare,
        system=c.system.id if c.system else None,
        systems=c.systems or None,
        cloud=cloud,
        either=either,
        decided_by_time=by_time,
        decided_by_machines=by_machines,
        already_owned=c.kind == "own" and c.already_owned,
    )


def _cloud(o: Option) -> Tie:
    """A rental as the answer names it: provider, instance, billing."""
    c = o.candidate
    return Tie(
        provider=c.provider.id if c.provider else None,
        instance=c.offer.instance if c.offer else None,
        billing=c.billing,
    )


def _rental_ties(
    options: list[Option], rent: Option, margin: float, tier: Callable[[Option], object]
) -> list[Tie]:
    """Other rentals whose totals are within `margin` of the best one's: as good an answer,
    given what their prices are known to (at most two, cheapest first). One whose framework
    runs there only partly (a PyTorch job on a TPU needs PyTorch/XLA or a JAX port) is not as
    good as a rental that runs the job as written, whatever its price, nor is one the ranking
    puts in a later tier (a marketplace host for a public API: ranking.rank_key), nor one that
    meets a target or deadline only at its central estimate where the answer meets it at the
    slow end (blind w31-05: 4 cards due in 213-388 h named "as good" as 8 due in 107 h against
    a 240 h deadline)."""
    others = [
        o
        for o in options
        if o.candidate.kind == "rent"
        and o is not rent
        and not incomplete_capex(o)
        and (caveated(rent) or not caveated(o))
        and (at_risk_of_missing(rent.risks) or not at_risk_of_missing(o.risks))
        and tier(o) == tier(rent)
    ]
    close = [o for o in others if o.cost.total <= rent.cost.total * (1 + margin)]
    named = _cloud(rent)
    ties: list[Tie] = []
    for tie in (_cloud(o) for o in close):  # another size of the answer's own offer, or one
        if tie != named and tie not in ties:  # named already, is no other cloud (w62-04, w63-04)
            ties.append(tie)
    return ties[:2]


def _deciders(
    own: Option,
    rent: Option,
    months: float,
    margin: float,
    runs_per_month: float | None,
    days_per_week: float = 7.0,
) -> Either:
    """What settles a near tie: owning wins above `own_above_hours_per_day` of use; renting
    wins if the project ends before `rent_before_month` (None where that side never wins).
    For runs or batches (`runs_per_month` given) the two options spend different hours on the
    same work, so a daily use decides nothing: the number of runs a month does."""
    if runs_per_month is not None:
        return Either(
            own=option_label(own),
            rent=option_label(rent),
            margin=margin,
            own_above_hours_per_day=None,
            cheaper_always=None,
            rent_before_month=None,
            own_above_runs_per_month=break_even_runs(own, rent, runs_per_month),
        )
    priced = own.own_spec and rent.rent_spec
    be = break_even_of(own, rent, months, days_per_week) if priced else None
    hours = be.hours_per_day if be else None
    return Either(
        own=option_label(own),
        rent=option_label(rent),
        margin=margin,
        own_above_hours_per_day=None if hours is None else round(hours, 1) + 0.0,
        cheaper_always=be.cheaper_always if be else None,
        rent_before_month=be.months if be else None,
    )
