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
