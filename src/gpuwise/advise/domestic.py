"""国产化 plans and the domestic clouds whose rentals the catalog cannot price.

Huawei Cloud rents Ascend NPUs (ModelArts) but shows their prices only after log-in, so the
catalog holds no offer for them and a domestic-only plan would otherwise rank purchases alone,
even for a project of a few weeks where a rental is what an expert asks for first. The plan
says which clouds rent domestic accelerators (catalog Provider.domestic_accelerators, sourced)
and how to add a quote so that the next plan ranks it (`gpuwise offers add` / `offers import`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpuwise.advise.candidates import DOMESTIC_VENDORS
from gpuwise.catalog import Catalog

if TYPE_CHECKING:
    from gpuwise.advise.plan import Plan

Fired = tuple[str, dict[str, Any]]


def domestic_rental_note(cat: Catalog, plan: Plan) -> list[Fired]:
    """The clouds that rent domestic accelerators when no such rental is priced in the plan
    (ranked, over a limit or unchecked); nothing when the data may not leave the premises or
    the user buys only (`acquire: buy`: no rental was looked for, priced or not; blind w64-02
    was told none had a price while AutoDL's 910B was in the catalog)."""
    s = plan.scenario
    if not s.domestic_only or not s.data_may_leave or s.acquire == "buy":
        return []
    considered = (*plan.options, *plan.infeasible, *plan.unchecked, *plan.set_aside)
    priced = any(
        o.candidate.kind == "rent" and o.candidate.gpu.vendor in DOMESTIC_VENDORS
        for o in considered
    )
    clouds = [p for p in cat.providers.values() if p.domestic_accelerators]
    if priced or not clouds:
        return []
    first = clouds[0]
    params: dict[str, Any] = {
        "provider": first.id,
        "months": s.months,
        "clouds_en": ", ".join(
            f"{p.name_en} ({', '.join(p.domestic_accelerators)})" for p in clouds
        ),
        "clouds_zh": "、".join(
            f"{p.name_zh}（{'、'.join(p.domestic_accelerators)}）" for p in clouds
        ),
    }
    return [("plan.note_domestic_rentals_unpriced", params)]


def nearest_domestic_note(plan: Plan) -> list[Fired]:
    """A buyer who prefers domestic hardware (domestic_preference_pct) and gets a foreign first
    option is told the first domestic one the plan ranks and how much more it costs than the
    answer, so the preference can be weighed against the gap (blind w31-01: the nearest one sat
    51st, unsaid); where none is ranked, that none is."""
    s = plan.scenario
    if not s.domestic_preference_pct or not plan.options:
        return []
    first = plan.options[0]
    if first.candidate.gpu.vendor in DOMESTIC_VENDORS:
        return []
    from gpuwise.advise.fired_billing import money
    from gpuwise.advise.labels import candidate_words
    from gpuwise.i18n import LANGS

    ranked = enumerate(plan.options, start=1)
    found = next(((i, o) for i, o in ranked if o.candidate.gpu.vendor in DOMESTIC_VENDORS), None)
    if found is None:
        return [("plan.note_no_domestic_ranked", {"pct": s.domestic_preference_pct})]
    rank, o = found
    params: dict[str, Any] = {f"option_{x}": candidate_words(o.candidate, x) for x in LANGS}
    params |= {"rank": rank, "total": money(o.cost.total, plan.currency)}
    more = 100 * (o.cost.total / first.cost.total - 1)
    params |= {"more": more, "pct": s.domestic_preference_pct}
    return [("plan.note_nearest_domestic", params)]
