"""What the budget left out: the faster options it alone blocks.

A budget turns options away silently unless the plan says what they were: a person who asks
"a Mac or an RTX 5090?" under $3,500 must hear that the 5090 costs $X and runs Y tokens/s, not
find it missing (blind w18-02). The note names up to MAX_NAMED options that the budget alone
blocks and that beat the answer on speed (more tokens/s for a service or chat, fewer hours for
a run), priced in full (a total without the cards' price is no price: blind w22-04 was told of
four H100 PCIe at "EUR 3,025 in all", host and power only) and not ranked in another form
(with a cold standby): the steps up the cost/speed front (each faster than every cheaper
one), cheapest first, with its total and its speed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpuwise.advise.labels import candidate_words
from gpuwise.i18n import LANGS, Lang, t

if TYPE_CHECKING:
    from gpuwise.advise.evaluate import Fired, Option
    from gpuwise.advise.outcome import Plan

MAX_NAMED = 3
"""Options named: the cheapest steps up the cost/speed front."""


def _speed(o: Option) -> float:
    """Higher is faster: 1/hours for a run, tokens/s otherwise (owned machines serving
    beside the option's included)."""
    if o.time_hours:
        return 1.0 / o.time_hours
    kept = o.beside.sized.tokens_per_s if o.beside is not None else 0.0
    return o.sized.tokens_per_s + kept


def over_budget_note(plan: Plan) -> list[Fired]:
    """The ⓘ line naming faster options only the budget blocks; [] where there are none."""
    if plan.scenario.budget is None or not plan.options:
        return []
    # faster than every option within the budget, not only the first (blind w33-05: EUR 125k
    # purchases named beside a EUR 33 rental that finished sooner)
    fastest = (
        max(_speed(o) for o in plan.options if o.sized.speed_known)
        if any(o.sized.speed_known for o in plan.options)
        else _speed(plan.options[0])
    )
    from gpuwise.advise.evaluate import incomplete_capex
    from gpuwise.advise.labels import option_label

    ranked = {option_label(o) for o in plan.options}  # in the list another way (cold standby)
    blocked = [
        o
        for o in plan.infeasible
        if [k for k, _ in o.blockers] == ["plan.block_budget"]
        and option_label(o) not in ranked
        and not incomplete_capex(o)  # a total without its cards is no price (blind w22-04)
        and o.sized.speed_known
        and _speed(o) > fastest * 1.05
    ]
    named: list[Option] = []  # the cost/speed front: each faster than every cheaper one
    for o in sorted(blocked, key=lambda o: (o.cost.total, -_speed(o))):
        if not named or _speed(o) > _speed(named[-1]) * 1.05:
            named.append(o)
    named = named[:MAX_NAMED]
    if not named:
        return []
    from gpuwise.advise.fired import money

    def one(o: Option, lang: Lang) -> str:
        speed = (
            t("plan.over_budget_hours", lang=lang, hours=o.time_hours)
            if o.time_hours
            else t("plan.over_budget_tps", lang=lang, tps=_speed(o))
        )
        words = candidate_words(o.candidate, lang)
        return t(
            "plan.over_budget_item",
            lang=lang,
            option=words,
            total=money(o.cost.total, plan.currency),
            speed=speed,
        )

    params = {
        f"items_{lang}": t("plan.list_sep", lang=lang).join(one(o, lang) for o in named)
        for lang in LANGS
    }
    return [("plan.note_over_budget", params)]
