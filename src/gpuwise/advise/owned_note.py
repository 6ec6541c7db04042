"""Hardware the user owns that the answer does not use: what keeping it costs, what it is worth.

A plan whose first option rents (or buys) beside cards the user already owns is read as
"rent" — and followed literally the user pays twice: the rental, and the rack, power and
upkeep of the cards left where they are (blind w25-05: eight owned RTX 4090s in a paid
colocation rack, an answer that rented two more and never named them). An expert says
what using the owned cards would cost instead, what they would fetch if sold, and, where the
owned option loses only to the rent of the rack it sits in and the job needs no data
centre, what it would cost in the office: the plan is run again with `site: office` and
quoted only where it ranks the owned hardware first. Pure: the replanning function comes in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpuwise.advise.fired_billing import money
from gpuwise.advise.labels import candidate_words
from gpuwise.advise.margin import tokens_band
from gpuwise.i18n import LANGS

if TYPE_CHECKING:
    from gpuwise.advise.evaluate import Option
    from gpuwise.advise.fixes import Replan
    from gpuwise.advise.outcome import Plan
    from gpuwise.catalog import Catalog

Fired = tuple[str, dict[str, Any]]

RACK_SITES = ("colocation", "datacenter")
"""Sites that charge rent for the space: an owned machine there pays while it sits idle."""


def _uses_owned(o: Option) -> bool:
    c = o.candidate
    return c.already_owned or bool(c.owned_kept) or bool(c.beside_owned) or o.beside is not None


def _used_value(plan: Plan, owned: list[Option], cat: Catalog) -> float | None:
    """The owned fleet's used value: each owned card at the per-card value the cost model
    gives the option that uses it (cost/own.py `opportunity_value`: the newest dated
    second-hand price aged along the resale curve, else the curve); None where any owned part
    has no known value."""
    per_card: dict[str, float] = {}
    for o in owned:
        worth = o.cost.details.get("opportunity_value")
        cards = o.candidate.cards or o.candidate.count
        if worth and cards:
            per_card.setdefault(o.candidate.gpu.id, worth / cards)
    total = 0.0
    for held in plan.scenario.owns:
        gpu_id = cat.gpu(held.gpu).id
        if gpu_id not in per_card:
            return None
        total += per_card[gpu_id] * held.count
    return total


def _used_price_known(cat: Catalog, gpu: str) -> bool:
    """Whether the catalog has a second-hand price for the card (else its value is its launch
    price along the resale curve, and the note says so: blind w60-03 was told of a
    second-hand price for an RTX A6000 the catalog has none for)."""
    return any(p.kind == "used" for p in cat.gpu(gpu).prices)


def _office(plan: Plan, replan: Replan, answer: Option) -> dict[str, Any] | None:
    """The owned option planned in the office instead of a rented rack, where that ranks it
    first and below the answer; None where the job needs the rack (a public API) or moving
    would not change the answer."""
    s = plan.scenario
    if s.public_api or s.owned_site() not in RACK_SITES:
        return None
    moved = replan(s, {"site": "office"})
    first = moved.options[0] if moved.options else None
    if first is None or not first.candidate.already_owned:
        return None
    if first.cost.total >= answer.cost.total:
        return None
    return {"office_total": money(first.cost.total, plan.currency)}


def _short_of_target(plan: Plan, answer: Option) -> Fired | None:
    """The owned hardware that runs the whole load but misses the speed target at the central
    estimate, where the target is inside its error band: whether it meets it is for a
    benchmark on the card to say, and it costs less than the answer (blind w34-04: an owned
    RTX 3090 11% short of 100 tokens/s was dropped for a EUR 1,387 purchase, its EUR 245 never
    said). None otherwise."""
    from gpuwise.advise.owned_beside import too_slow_owned

    s = plan.scenario
    short = too_slow_owned(s, plan.infeasible)
    band = tokens_band(short.sized) if short is not None else None
    target = s.workload.target_tokens_per_s or 0.0
    if short is None or band is None or band[1] < target or not target:
        return None
    if short.cost.total >= answer.cost.total:
        return None
    tps, concurrency = short.sized.tokens_per_s, max(1, s.workload.concurrency)
    return (
        "plan.note_owned_short",
        {
            "tokens_per_s": round(tps),
            "low": round(band[0]),
            "high": round(band[1]),
            "target": round(target),
            "pct": round(100 * (1 - tps / target)),
            "per_request": round(tps / concurrency, 1),
            "per_request_target": round(target / concurrency, 1),
            "total": money(short.cost.total, plan.currency),
            "less": money(answer.cost.total - short.cost.total, plan.currency),
        },
    )


def owned_note(plan: Plan, replan: Replan) -> list[Fired]:
    """The ⓘ line for owned hardware the first option leaves unused; [] where it uses it."""
    s = plan.scenario
    if not s.owns or not plan.options or _uses_owned(plan.options[0]):
        return []
    answer = plan.options[0]
    owned = [o for o in plan.options if o.candidate.already_owned]
    fleet = {f"fleet_{lang}": _fleet(plan, replan.cat, lang) for lang in LANGS}
    short = None if owned else _short_of_target(plan, answer)
    if short is not None:  # the owned cards may well do: said instead of "sell them"
        return [(short[0], {**short[1], **fleet})]
    params: dict[str, Any] = {**fleet}
    key = "plan.note_owned_unused_unfit"
    if owned:
        best = owned[0]
        key = "plan.note_owned_unused"
        rank = plan.options.index(best) + 1
        words = {f"option_{lang}": candidate_words(best.candidate, lang) for lang in LANGS}
        more = best.cost.total - answer.cost.total
        rack = best.cost.items.get("colocation", 0.0)
        params |= {**words, "rank": rank, "total": money(best.cost.total, plan.currency)}
        params |= {"more": money(max(0.0, more), plan.currency), "rack": money(rack, plan.currency)}
        if more <= 0:
            key = "plan.note_owned_unused_cheaper"
        elif rack <= 0:
            key = "plan.note_owned_unused_norack"
    value = _used_value(plan, owned, replan.cat)
    notes: list[Fired] = [(key, params)]
    if value:
        quoted = all(_used_price_known(replan.cat, held.gpu) for held in plan.scenario.owns)
        sell = "plan.note_owned_sell" if quoted else "plan.note_owned_sell_curve"
        notes.append((sell, {"value": money(value, plan.currency)}))
    office = _office(plan, replan, answer)
    if office:
        notes.append(("plan.note_owned_office", office))
    return notes


def _fleet(plan: Plan, cat: Catalog, lang: str) -> str:
    """'8× NVIDIA GeForce RTX 4090', by the catalog's names."""
    parts = [f"{held.count}× {cat.gpu(held.gpu).name}" for held in plan.scenario.owns]
    return (" + " if lang == "en" else "、").join(parts)
