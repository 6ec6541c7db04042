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
    (ranked, over a limit or unchecked); nothing when the data may not leave the premises."""
    s = plan.scenario
    if not s.domestic_only or not s.data_may_leave:
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
