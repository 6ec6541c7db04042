"""Data that may not leave the premises, beside a region: the other reading, planned.

`data_may_leave: false` keeps the data on the user's own machines, so every cloud is left out.
Written beside a region (`region: eu`), it is often meant as data residency: the data may be
processed by a cloud, but only inside that region (GDPR's transfer rules, China's data-export
rules). Blind w25-04: a German SaaS with both settings got a purchase in a colocation rack at
EUR 4.1k/month, where the same plan with EU clouds allowed rents at EUR 3.2k. An expert
states the reading taken and quotes the other one: the plan is run again with clouds allowed
inside the region, and the note gives its first option where that is a rental, with how its
total compares (less, about the same within the prices' own uncertainty, or more): the
reading changes the kind of answer, not only its price (blind w26-02: a French hospital got
two consumer cards at 4 bits on premises, the EU cloud's FP8 card at the same cost unnamed).
The strict reading stays the default: it is the safe one, and the user decides. Pure: the
replanning function comes in (fixes.Replan).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpuwise.advise.fired_billing import money
from gpuwise.advise.labels import candidate_words
from gpuwise.advise.regions import ANY, find_region
from gpuwise.i18n import LANGS

if TYPE_CHECKING:
    from gpuwise.advise.fixes import Replan
    from gpuwise.advise.outcome import Plan
    from gpuwise.catalog import Catalog
    from gpuwise.catalog.schema_advise import Region

Fired = tuple[str, dict[str, Any]]


def region_words(region: Region | None, name: str) -> dict[str, str]:
    """The region by its name in each language, and the laws that keep data there where the
    catalog names them (a Chinese bank reads 《个人信息保护法》, not the GDPR: blind w29-04)."""
    words: dict[str, str] = {}
    for lang in LANGS:
        named = getattr(region, f"name_{lang}") if region else name
        if lang == "zh":  # a Latin code keeps a space from the Chinese around it
            named = (
                (" " if named[:1].isascii() else "") + named + (" " if named[-1:].isascii() else "")
            )
        words[f"region_{lang}"] = named
        laws = getattr(region, f"residency_laws_{lang}", None) if region else None
        words[f"laws_{lang}"] = (", e.g. " if lang == "en" else "，例如") + laws if laws else ""
    return words


def residency_note(plan: Plan, cat: Catalog, replan: Replan, margin: float) -> list[Fired]:
    """The ⓘ line quoting the in-region cloud plan; [] where the region is open or no cloud
    in it answers."""
    s = plan.scenario
    if s.data_may_leave or s.region.strip().lower() in (*ANY, "global"):
        return []
    if not plan.options:
        return []  # the fixes quote the same change (plan.fix_data_may_leave)
    in_region = replan(s, {"data_may_leave": True})
    first = in_region.options[0] if in_region.options else None
    if first is None or first.candidate.kind != "rent":
        return []
    ratio = first.cost.total / plan.options[0].cost.total
    words = {f"option_{lang}": candidate_words(first.candidate, lang) for lang in LANGS}
    params = {"region": s.region, "total": money(first.cost.total, plan.currency), **words}
    params |= region_words(find_region(cat, s.region), s.region)
    if ratio < 0.01:  # "100% less" reads as free: say what share of the answer it is
        return [("plan.note_residency_fraction", params | {"share": f"{100 * ratio:.2g}%"})]
    if ratio < 1 - margin:
        return [("plan.note_residency", params | {"pct": 100 * (1 - ratio)})]
    if ratio > 1 + margin:
        return [("plan.note_residency_dearer", params | {"pct": 100 * (ratio - 1)})]
    return [("plan.note_residency_same", params)]
