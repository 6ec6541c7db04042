"""The three answers of a plan (buy or rent, which card, which cloud) from its ranked options.

A near tie between owning and renting is answered 'either', with what decides between them.
"""

from __future__ import annotations

from typing import Any

from gpuwise.advise.evaluate import Option, incomplete_capex
from gpuwise.advise.fired import option_label
from gpuwise.advise.outcome import break_even_of


def answers_of(options: list[Option], margin: float, months: float) -> dict[str, Any]:
    """buy_or_rent, vendor, card, cloud from the cheapest ranked options of each kind.

    Owning and renting within `margin` of each other (the prices' own uncertainty) make the
    answer 'either', with what decides between them: the daily use above which owning wins and
    the month before which renting does. 'either' only compares two fully priced options; a
    floor is never called the cheapest.
    """
    best = options[0] if options else None
    if best is None:
        return {"buy_or_rent": None, "vendor": None, "card": None, "cloud": None}
    own = next((o for o in options if o.candidate.kind == "own" and not incomplete_capex(o)), None)
    rent = next((o for o in options if o.candidate.kind == "rent"), None)
    verdict = "buy" if best.candidate.kind == "own" else "rent"
    either = None
    if own and rent and not incomplete_capex(best):
        gap = abs(own.cost.total - rent.cost.total)
        if gap <= margin * min(own.cost.total, rent.cost.total):
            verdict, either = "either", _deciders(own, rent, months, margin)
    cloud = None
    if verdict != "buy" and rent and rent.candidate.provider:
        cloud = {**_cloud(rent), "ties": _rental_ties(options, rent, margin)}
    return {
        "buy_or_rent": verdict,
        "vendor": best.candidate.gpu.vendor,
        "card": best.candidate.gpu.id,
        "count": best.candidate.cards or best.candidate.count,
        "system": best.candidate.system.id if best.candidate.system else None,
        "systems": best.candidate.systems or None,
        "cloud": cloud,
        "either": either,
    }


def _cloud(o: Option) -> dict[str, Any]:
    """A rental as the answer names it: provider, instance, billing."""
    c = o.candidate
    return {
        "provider": c.provider.id if c.provider else None,
        "instance": c.offer.instance if c.offer else None,
        "billing": c.billing,
    }


def _rental_ties(options: list[Option], rent: Option, margin: float) -> list[dict[str, Any]]:
    """Other rentals whose totals are within `margin` of the best one's: as good an answer,
    given what their prices are known to (at most two, cheapest first)."""
    others = [
        o
        for o in options
        if o.candidate.kind == "rent" and o is not rent and not incomplete_capex(o)
    ]
    close = [o for o in others if o.cost.total <= rent.cost.total * (1 + margin)]
    return [_cloud(o) for o in close[:2]]


def _deciders(own: Option, rent: Option, months: float, margin: float) -> dict[str, Any]:
    """What settles a near tie: owning wins above `own_above_hours_per_day` of use; renting
    wins if the project ends before `rent_before_month` (None where that side never wins)."""
    be = break_even_of(own, rent, months) if own.own_spec and rent.rent_spec else None
    hours = be.hours_per_day if be else None
    return {
        "own": option_label(own),
        "rent": option_label(rent),
        "margin": margin,
        "own_above_hours_per_day": None if hours is None else round(hours, 1) + 0.0,
        "cheaper_always": be.cheaper_always if be else None,
        "rent_before_month": be.months if be else None,
    }
