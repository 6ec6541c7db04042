"""A bought card no longer made, priced at a new price: said as a risk (advise/reasons.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpuwise.advise.evaluate import Option


def ended_but_priced_new(o: Option) -> str:
    """The month a card's production ended where this bought option still prices it at a new
    (launch or shop) price: a person may find one in old stock or second-hand, at another
    price (blind w37-02: a 512 GB Mac Studio Apple stopped selling, quoted new at $9,499).
    '' otherwise."""
    c = o.candidate
    ended = c.gpu.production_ended
    if c.kind != "own" or c.already_owned or ended is None:
        return ""
    new = [p for p in o.prices if p.label in ("card:launch", "card:street")]
    return ended.strftime("%Y-%m") if new else ""
