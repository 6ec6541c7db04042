"""A country with no rental priced in it: the nearest wider region's rental, planned.

A scenario that names a country (`region: korea`) is planned on offers priced there: data
residency is national in much of Asia (Korea's PIPA, Japan's APPI, India's DPDP Act). Where
the catalog prices no rental in the country that the plan could rank, the answer is a
purchase by default, and "owning wins" read as if renting had lost (blind w52-04: a Korean
studio's monthly NPC batch was answered with a USD 326k HGX H200 server; the same job rents
for a tenth of that in Tokyo). An expert says what renting next door would cost and what it
gives up: the plan is run again in the wider region the country lies in (`Region.within`)
and its first rental is quoted, with the residency question left to the user. Only where
data may leave the premises, rentals could answer (not local use) and none was ranked.

Pure: the replanning function comes in (fixes.Replan).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpuwise.advise.fired_billing import money
from gpuwise.advise.labels import candidate_words
from gpuwise.advise.regions import find_region
from gpuwise.advise.residency_note import region_words
from gpuwise.i18n import LANGS

if TYPE_CHECKING:
    from gpuwise.advise.fixes import Replan
    from gpuwise.advise.outcome import Plan
    from gpuwise.catalog import Catalog

Fired = tuple[str, dict[str, Any]]


def nearby_rental_note(plan: Plan, cat: Catalog, replan: Replan) -> list[Fired]:
    """The ⓘ line quoting the first rental of the wider region; [] where a rental is ranked,
    the region lies in no wider one, clouds are barred, or the wider region ranks none."""
    s = plan.scenario
    if not plan.options or not s.data_may_leave or s.workload.kind == "local":
        return []
    if any(o.candidate.kind == "rent" for o in plan.options):
        return []
    region = find_region(cat, s.region)
    if region is None or not region.within:
        return []
    wider = find_region(cat, region.within)
    again = replan(s, {"region": region.within})
    found = next((o for o in again.options if o.candidate.kind == "rent"), None)
    if found is None:
        return []
    first = plan.options[0]
    params: dict[str, Any] = {f"option_{x}": candidate_words(found.candidate, x) for x in LANGS}
    params |= region_words(region, s.region)
    params |= {f"wider_{x}": getattr(wider, f"name_{x}") if wider else region.within for x in LANGS}
    params |= {"wider": region.within, "total": money(found.cost.total, plan.currency)}
    params["ratio"] = found.cost.total / first.cost.total if first.cost.total > 0 else 0.0
    return [("plan.note_rental_nearby", params)]
