"""Data that may not leave the premises, beside a region: the other reading, planned.

`data_may_leave: false` keeps the data on the user's own machines, so every cloud is left out.
Written beside a region (`region: eu`), it is often meant as data residency: the data may be
processed by a cloud, but only inside that region (GDPR's transfer rules, China's data-export
rules). Blind w25-04: a German SaaS with both settings got a purchase in a colocation rack at
EUR 4.1k/month, where the same plan with EU clouds allowed rents at EUR 3.2k. An expert
states the reading taken and quotes the other one: the plan is run again with clouds allowed
inside the region, and the note gives its first option where that is a rental cheaper than the
answer by more than the prices' own uncertainty. The strict reading stays the default: it is
the safe one, and the user decides. Pure: the replanning function comes in (fixes.Replan).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpuwise.advise.fired_billing import money
from gpuwise.advise.labels import candidate_words
from gpuwise.advise.regions import ANY
from gpuwise.i18n import LANGS

if TYPE_CHECKING:
    from gpuwise.advise.fixes import Replan
    from gpuwise.advise.outcome import Plan

Fired = tuple[str, dict[str, Any]]


def residency_note(plan: Plan, replan: Replan, margin: float) -> list[Fired]:
    """The ⓘ line quoting the in-region cloud plan; [] where the region is open or clouds
    would not answer for clearly less."""
    s = plan.scenario
    if s.data_may_leave or s.region.strip().lower() in (*ANY, "global"):
        return []
    if not plan.options:
        return []  # the fixes quote the same change (plan.fix_data_may_leave)
    in_region = replan(s, {"data_may_leave": True})
    first = in_region.options[0] if in_region.options else None
    if first is None or first.candidate.kind != "rent":
        return []
    answer = plan.options[0]
    if first.cost.total >= answer.cost.total * (1 - margin):
        return []
    words = {f"option_{lang}": candidate_words(first.candidate, lang) for lang in LANGS}
    saved = 100 * (1 - first.cost.total / answer.cost.total)
    params = {"region": s.region, "total": money(first.cost.total, plan.currency), **words}
    return [("plan.note_residency", params | {"pct": saved})]
