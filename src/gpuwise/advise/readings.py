"""The notes an expert adds after the ranking: other readings of the scenario, each planned.

Each says what the plan assumed and quotes the answer under the other reading, from the
planner run again with that one change (fixes.Replan): a public API's office machine in a
colocation rack (colocation_note), data kept on premises against data kept in a region
(residency_note), owned hardware the answer leaves unused (owned_note), rentals the default
device cap left out (wider_note), rentals of the wider region where the country named
prices none (nearby_note), and a steady year on demand at a cloud that sells
commitments it does not price (commitment_note, no replan).
Pure: the replanning comes in as a factory, so the planner module is imported only where a
reading applies (the first plan of a scenario without one pays nothing).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpuwise.advise.fixes import Replan
    from gpuwise.advise.outcome import Plan
    from gpuwise.catalog import Catalog

Fired = tuple[str, dict[str, Any]]


def other_readings(
    plan: Plan, cat: Catalog, replan_of: Callable[[], Replan], margin: float, replans: bool
) -> list[Fired]:
    """The ⓘ lines of the readings that apply; `replans`: whether planning again is allowed
    (not inside a fix's or a reading's own plan)."""
    s = plan.scenario
    out: list[Fired] = []
    if replans and s.public_api and s.owned_site() in ("home", "office"):
        from gpuwise.advise.colocation_note import colocation_note

        out += colocation_note(plan, replan_of(), margin)
    if s.domestic_preference_pct:
        from gpuwise.advise.domestic import nearest_domestic_note

        out += nearest_domestic_note(plan)
    if plan.options and plan.options[0].candidate.kind == "rent":
        from gpuwise.advise.commitment_note import commitment_note

        out += commitment_note(plan, cat)
    if replans and not s.data_may_leave:
        from gpuwise.advise.residency_note import residency_note

        out += residency_note(plan, cat, replan_of(), margin)
    if replans and s.workload.kind == "serve":
        from gpuwise.advise.native_note import native_format_note

        out += native_format_note(plan, cat, replan_of())
    if replans and plan.options and plan.options[0].candidate.kind == "own":
        from gpuwise.advise.wider_note import wider_rental_note

        out += wider_rental_note(plan, replan_of())
        from gpuwise.advise.nearby_note import nearby_rental_note

        out += nearby_rental_note(plan, cat, replan_of())
    if replans and plan.options:
        from gpuwise.advise.wider_note import wider_copies_note

        out += wider_copies_note(plan, replan_of(), margin)
    if replans and s.owns:
        from gpuwise.advise.owned_note import owned_note

        out += owned_note(plan, replan_of())
    return out
