"""An institution's indirect costs (F&A) on what it rents.

A US university charges its negotiated indirect-cost rate on a grant's "modified total direct
costs", which include services such as cloud computing and exclude equipment (2 CFR 200.1,
"Modified Total Direct Cost": equipment and capital expenditures are left out). So the same
GPU hours cost a lab its rate more when rented than the hardware does when bought: a 55% rate
can decide buy against rent. Rates differ by school and some waive cloud spending, so the
planner charges one only when the scenario gives it (`rental_overhead_pct`) and says so for
an institution that gives none.
"""

from __future__ import annotations

from dataclasses import replace

from gpuwise.advise.evaluate import Fired, Option
from gpuwise.advise.scenario import Scenario


def price_rental_overhead(s: Scenario, options: list[Option]) -> None:
    """Add the indirect costs (in place) to every rental: the rate times its whole bill."""
    rate = (s.rental_overhead_pct or 0.0) / 100
    if rate <= 0:
        return
    for o in options:
        if o.candidate.kind != "rent":
            continue
        charged = sum(o.cost.items.values())
        o.cost = replace(o.cost, items={**o.cost.items, "indirect_costs": charged * rate})


def rental_overhead_note(s: Scenario, rentals_ranked: bool = True) -> list[Fired]:
    """For a US institution that set no rate: rentals were priced without indirect costs (said
    only where a rental is ranked: with every cloud left out there is nothing it applies to).
    Only in the US does the rate fall on cloud bills and not on equipment as it is spent:
    China's grant rules fix the indirect costs in the approved budget (a share of the direct
    costs less equipment), so renting adds none (blind w31-05: the US advice shown to a
    Chinese institute)."""
    if s.entity != "institution" or s.rental_overhead_pct is not None or not rentals_ranked:
        return []
    if s.currency != "USD" and s.region.strip().lower() != "us":
        return []
    return [("plan.note_rental_overhead_unset", {})]
