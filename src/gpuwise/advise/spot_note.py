"""Spot allowed, but the first rental's cloud lists no spot price: say so, so the answer's
on-demand bill is not read as "spot was weighed and lost" (blind w56-04: an Alibaba-only batch
with `allow_spot: true` was priced on demand without a word, for lack of a preemptible price)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpuwise.advise.evaluate import Fired
from gpuwise.catalog import Catalog

if TYPE_CHECKING:
    from gpuwise.advise.outcome import Plan


def no_spot_price_note(cat: Catalog, plan: Plan) -> list[Fired]:
    """Where spot is allowed and the first option rents on demand (or by the month) from a cloud
    whose catalog offers carry no spot price at all: the cloud, the card, and the command that
    adds a spot quote so the next plan weighs it."""
    s = plan.scenario
    if not plan.options or not s.spot_allowed():
        return []
    first = plan.options[0].candidate
    if first.kind != "rent" or first.billing == "spot" or first.provider is None:
        return []
    provider = first.provider
    if any(p.billing == "spot" for o in cat.offers if o.provider == provider.id for p in o.prices):
        return []
    params = {
        "provider": provider.id,
        "provider_en": provider.name_en,
        "provider_zh": provider.name_zh,
        "gpu": first.gpu.id,
        "count": first.count,
    }
    sold = not provider.billing_modes or "spot" in provider.billing_modes
    return [("plan.note_no_spot_price" if sold else "plan.note_no_spot_sold", params)]


def spot_slack_note(plan: Plan, margin: float) -> list[Fired]:
    """Where spot is allowed and the cheapest option left out only for the deadline's spot
    slack (margin.spot_slack_check) costs clearly less than the answer: name it, its long-end
    hours and the slack it lacks, so spot is not read as weighed and lost (blind w66-01: a
    4 x B300 spot run at 36% of the on-demand answer was dropped without a word)."""
    if not plan.options:
        return []
    blocked = [
        o
        for o in plan.infeasible
        if [k for k, _ in o.blockers] == ["plan.block_spot_slack"]
        and o.cost.total < plan.options[0].cost.total * (1 - margin)
    ]
    if not blocked:
        return []
    from gpuwise.advise.fired_billing import money
    from gpuwise.advise.labels import candidate_words
    from gpuwise.i18n import LANGS

    cheapest = min(blocked, key=lambda o: o.cost.total)
    params = dict(next(p for k, p in cheapest.blockers if k == "plan.block_spot_slack"))
    params |= {f"option_{x}": candidate_words(cheapest.candidate, x) for x in LANGS}
    params["total"] = money(cheapest.cost.total, plan.currency)
    params["first_total"] = money(plan.options[0].cost.total, plan.currency)
    return [("plan.note_spot_slack", params)]
