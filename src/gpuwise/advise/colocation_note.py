"""A public API whose owned machine would sit in an office: what buying and colocating costs.

A company's own server behind a public API ranks after data-centre rentals when it would sit
at home or in an office (advise/site.py: no redundant power, network or staff). An expert
then says the third way: buy the server and house it in a rented colocation rack, where it
gets a data centre's uptime for the rack's rent (blind w16-03: the plan said "rent" beside a
purchase its own rule called cheaper, and never named colocation). The plan is run again with
`site: colocation` (cost/power.colocation_rent: the region's rent per contracted kW); where its
first option is a purchase that costs less than the answer, the note quotes it, with the
change to make. Pure: the replanning function comes in (fixes.Replan).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpuwise.advise.labels import candidate_words
from gpuwise.advise.site import HOME_SITES
from gpuwise.i18n import LANGS

if TYPE_CHECKING:
    from gpuwise.advise.fixes import Replan
    from gpuwise.advise.outcome import Plan

Fired = tuple[str, dict[str, Any]]


def colocation_note(plan: Plan, replan: Replan, margin: float) -> list[Fired]:
    """The ⓘ line quoting a colocated purchase cheaper than the answer by more than the
    prices' own uncertainty (`margin`); [] where none is."""
    s = plan.scenario
    if not s.public_api or s.owned_site() not in HOME_SITES or not s.organisation():
        return []
    if not plan.options or plan.options[0].candidate.kind == "own":
        return []
    colocated = replan(s, {"site": "colocation"})
    first = colocated.options[0] if colocated.options else None
    if first is None or first.candidate.kind != "own" or first.candidate.already_owned:
        return []
    if first.cost.total >= plan.options[0].cost.total * (1 - margin):
        return []
    from gpuwise.advise.fired import money

    words = {f"option_{lang}": candidate_words(first.candidate, lang) for lang in LANGS}
    rent = money(first.cost.items.get("colocation", 0.0), plan.currency)
    params = {"total": money(first.cost.total, plan.currency), "rent": rent, **words}
    return [("plan.note_colocation", params)]
