"""Much faster for a little more: the step up the answer's speed that an expert names.

A plan ranks by cost among options that meet the user's limits, and a chat or service with no
speed target of its own is held only to the reading-speed floor; the cheapest option may then
crawl just above it while one twice as fast costs little more. An expert says so: "add a $429
card and keep a tenth of the model in RAM for 7 tokens/s, or a used RTX 3090 for $313 more at
18" (blind w64-03 re-run: the cheaper card became the answer once cards other than the owned
one were tried beside RAM offload). The note names the cheapest ranked option of the answer's
own tier (as sure of its price and speed, no new risk class) that is at least FASTER_RATIO
times as fast for at most COST_RATIO times the total, with both figures.

Pure: reads the ranked options.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpuwise.advise.labels import candidate_words
from gpuwise.advise.ranking import TIERS, rank_key
from gpuwise.catalog import Catalog
from gpuwise.cost.power import assumption
from gpuwise.i18n import LANGS

if TYPE_CHECKING:
    from gpuwise.advise.evaluate import Fired, Option
    from gpuwise.advise.outcome import Plan

FASTER_RATIO = 2.0
"""How much faster the named option is: twice, well past the speed estimate's own error
(decode 10%, serving 21% median leave-one-source-out: benchmarks/README.md)."""
COST_RATIO = 2.0
"""The most it may cost, in answers' totals: twice as fast for less than twice the money is
more speed per unit of money than the answer buys."""


def faster_for_more_note(cat: Catalog, plan: Plan) -> list[Fired]:
    """The ⓘ line naming a much faster option for a little more; [] where the user set a
    speed target (what they need is stated), for a timed run, or where none qualifies. Less
    than the prices' own uncertainty more is a tie the ranking settles, not "a little more"
    (blind w65-04 read "for $0 more")."""
    s, options = plan.scenario, plan.options
    w = s.workload
    if w.kind not in ("local", "serve") or w.one_off() or w.target_tokens_per_s:
        return []  # a batch is timed in hours: its ties go to the sooner end (advise/ties.py)
    if len(options) < 2 or not options[0].sized.speed_known:
        return []
    first = options[0]
    tie = assumption(cat, "price_uncertainty_fraction").value
    tier = rank_key(s)
    step = [
        o
        for o in options[1:]
        if o.sized.speed_known
        and tier(o)[:TIERS] == tier(first)[:TIERS]
        and o.sized.tokens_per_s >= first.sized.tokens_per_s * FASTER_RATIO
        and first.cost.total * (1 + tie) < o.cost.total <= first.cost.total * COST_RATIO
    ]
    if not step:
        return []
    named = min(step, key=lambda o: (o.cost.total, -o.sized.tokens_per_s))
    return [("plan.note_faster_for_more", _params(plan, first, named))]


def _params(plan: Plan, first: Option, named: Option) -> dict[str, object]:
    from gpuwise.advise.fired import money

    params: dict[str, object] = {
        "more": money(named.cost.total - first.cost.total, plan.currency),
        "total": money(named.cost.total, plan.currency),
        "tps": named.sized.tokens_per_s,
        "first_tps": first.sized.tokens_per_s,
    }
    for lang in LANGS:
        params[f"option_{lang}"] = candidate_words(named.candidate, lang)
    return params
