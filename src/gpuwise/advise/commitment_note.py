"""A steady rental a year or longer at a cloud that sells term commitments it does not price.

Neoclouds (Nebius, Lambda, CoreWeave, Verda) sell 1-year commitments through their sales
teams and publish no price for them, so the plan ranks their on-demand prices only, and a
team asking "reserved or on demand?" for a 24/7 year-long load got "on demand" by default
(blind w25-03). A commitment bills every hour of its term; it pays where the load keeps the
machines busy for more of the hours than the discount leaves: busy share > 1 − discount. The
note names the provider, the busy share, and where the provider publishes its largest
discount, what the option would cost at it; the break-even share uses the largest discount
any provider in the catalog publishes where this one publishes none. Pure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpuwise.advise.fired_billing import money
from gpuwise.catalog.schema_cloud import HOURS_PER_MONTH

if TYPE_CHECKING:
    from gpuwise.advise.evaluate import Option
    from gpuwise.advise.outcome import Plan
    from gpuwise.catalog import Catalog

Fired = tuple[str, dict[str, Any]]

TERM_MONTHS = 12
"""The shortest commitment term these providers sell (365 days)."""


def _committed(o: Option, discount: float) -> float:
    """The option's total with its compute billed for every hour at `discount` off: the
    busy hours' compute scaled to all hours of the project, the rest of the bill unchanged."""
    compute = o.cost.items.get("compute", 0.0)
    busy = o.busy_hours_per_month
    if not compute or not busy:
        return o.cost.total
    every_hour = compute * HOURS_PER_MONTH / busy * (1 - discount)
    return o.cost.total - compute + every_hour


def commitment_note(plan: Plan, cat: Catalog) -> list[Fired]:
    """The ⓘ line for a first option that a quoted commitment could make cheaper; []
    otherwise."""
    s = plan.scenario
    first = plan.options[0] if plan.options else None
    if first is None or s.months < TERM_MONTHS:
        return []
    c = first.candidate
    if c.kind != "rent" or c.provider is None or c.billing != "on-demand":
        return []
    if "reserved-1y" not in c.provider.billing_modes or first.billing_alternatives.get(
        "reserved-1y"
    ):
        return []  # no commitment sold, or it is priced and was compared already
    providers = cat.providers.values()
    published = [p.commitment_max_discount for p in providers if p.commitment_max_discount]
    own = c.provider.commitment_max_discount
    discount = own or (max(published) if published else None)
    busy = first.busy_hours_per_month / HOURS_PER_MONTH
    if discount is None or busy <= 1 - discount:
        return []
    params: dict[str, Any] = {"provider": c.provider.name_en, "busy_pct": 100 * busy}
    if own:
        total = _committed(first, own)
        params |= {"pct": 100 * own, "total": money(total, plan.currency)}
        return [("plan.note_commitment_priced", params)]
    return [("plan.note_commitment", params | {"pct": 100 * discount})]
