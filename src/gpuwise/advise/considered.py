"""What became of each card or system the user says they are weighing (`consider:`).

People come to the plan with a shortlist ("a Mac Studio, a DGX Spark or a workstation with RTX
cards?"), and an expert answers every item on it: where it ranks and what it costs, or why it
is not an option (too slow at the slow end, cannot hold the model, not sold here, another rule).
Without this, an item the search priced and dropped is never named (blind w45-04: a Lyon
consultancy's DGX Spark and Mac Studio went unmentioned while the first option was a
workstation). Pure: the plan and its candidate set in, one ⓘ line per item out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpuwise.advise.candidates import CandidateSet
from gpuwise.advise.evaluate import Fired, Option, incomplete_capex
from gpuwise.advise.fired_billing import money
from gpuwise.catalog import Catalog
from gpuwise.catalog.schema import Gpu
from gpuwise.catalog.systems import find_system

if TYPE_CHECKING:
    from gpuwise.advise.outcome import Plan


def considered_gpu(cat: Catalog, name: str) -> Gpu:
    """A shortlisted card, or the card inside a shortlisted system; an unknown name is the
    catalog's one-line error with the closest names."""
    system = find_system(cat, name)
    return cat.gpu_by_id(system.gpu) if system is not None else cat.gpu(name)


def considered_notes(cat: Catalog, plan: Plan, cs: CandidateSet) -> list[Fired]:
    """One line per shortlisted item, in the scenario's order."""
    return [_fate(cat, plan, cs, name) for name in plan.scenario.consider]


def _fate(cat: Catalog, plan: Plan, cs: CandidateSet, name: str) -> Fired:
    gpu = considered_gpu(cat, name)
    base: dict[str, Any] = {"name": gpu.name}
    for rank, o in enumerate(plan.options, start=1):
        if o.candidate.gpu.id == gpu.id:
            total = money(o.cost.total, plan.currency)
            # blind w47-03: an unpriced 8 x MI300X server read as "$26,027 in all" (its power)
            key = "plan.considered_unpriced" if incomplete_capex(o) else "plan.considered_ranked"
            return (key, {**base, "rank": rank, "total": total})
    blocked = _closest([*plan.infeasible, *plan.unchecked], gpu)
    if blocked is not None and (blocked.blockers or blocked.unchecked):
        key, params = (blocked.blockers or blocked.unchecked)[0]
        return ("plan.considered_blocked", {**base, **_why(key, params)})
    if gpu.id in dict(plan.unfit):
        return ("plan.considered_unfit", {**base, "gb": round(dict(plan.unfit)[gpu.id], 1)})
    rule = cs.first_rule.get(gpu.id)
    if rule:
        return ("plan.considered_dropped", {**base, "rule": rule})
    return ("plan.considered_absent", base)


SPEED_BLOCKERS = frozenset(
    {"plan.block_throughput", "plan.block_reading_speed", "plan.block_deadline"}
)
"""Blockers that say a configuration is too slow: a larger one of the same card may not be."""


def _closest(options: list[Option], gpu: Gpu) -> Option | None:
    """The card's configuration nearest to an answer: one that does the job and is held back
    by its price, a missing price or another limit before one that is too slow, then the
    fewest blockers, then the fastest. The first in the list was the smallest (blind w54-03:
    "H100 ... 299 tokens/s is below the 1,200 target" was one H100's speed, where 8 of them
    served 1,564 and were out only for the budget)."""
    mine = [o for o in options if o.candidate.gpu.id == gpu.id]
    if not mine:
        return None

    def key(o: Option) -> tuple[bool, bool, int, float]:
        keys = {k for k, _ in o.blockers}
        unpriced = not o.blockers  # only unchecked: a priced limit is the firmer reason
        return (bool(keys & SPEED_BLOCKERS), unpriced, len(keys), -o.sized.tokens_per_s)

    return min(mine, key=key)


def _why(key: str, params: dict[str, Any]) -> dict[str, str]:
    """The option's first blocker, in both languages, to quote inside the line."""
    from gpuwise.advise.reasons import words
    from gpuwise.i18n import LANGS, t, using_lang

    out = {}
    for lang in LANGS:
        with using_lang(lang):  # ids (cost items, vendors) named in the line's language
            out[f"why_{lang}"] = t(key, lang=lang, **words(params))
    return out
