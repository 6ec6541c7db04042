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
STEP_UP = 1.15
"""How much faster each named option is than the fastest within the budget and than the one
named before it: more than the speed estimate's own error (decode 10%, prefill 15% median,
leave-one-source-out: benchmarks/README.md), so the step is real, not noise (blind w59-03
re-run: eight RTX 5070 in two machines named for 28 tokens/s beside a card at 26)."""
BUDGET_REACH = 2.0
"""The most an option named may spend, in budgets: what a little more money buys is worth
hearing, what ten times the budget buys is not an alternative (blind w59-03 re-run: eight
workstation cards in two machines named for a CNY 12,000 home build)."""


def _speed(o: Option) -> float:
    """Higher is faster: 1/hours for a run, tokens/s otherwise (owned machines serving
    beside the option's included)."""
    if o.time_hours:
        return 1.0 / o.time_hours
    kept = o.beside.sized.tokens_per_s if o.beside is not None else 0.0
    return o.sized.tokens_per_s + kept


def _within_reach(o: Option) -> bool:
    """Whether the option spends at most BUDGET_REACH budgets (its budget blocker's figures,
    both in the plan's currency and per the budget's period)."""
    params = next(p for k, p in o.blockers if k == "plan.block_budget")
    return bool(params["spend"] <= params["budget"] * BUDGET_REACH)


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
        and _speed(o) > fastest * STEP_UP
        and _within_reach(o)
    ]
    named: list[Option] = []  # the cost/speed front: each faster than every cheaper one
    for o in sorted(blocked, key=lambda o: (o.cost.total, -_speed(o))):
        if not named or _speed(o) > _speed(named[-1]) * STEP_UP:
            named.append(o)
    named = named[:MAX_NAMED]
    if not named:
        return []
    from gpuwise.advise.fired import money

    def one(o: Option, lang: Lang) -> str:
        speed = t("plan.over_budget_tps", lang=lang, tps=_speed(o))
        if o.time_hours:  # a run under an hour in minutes, not "0.0 h" (blind w65-01)
            minutes = o.time_hours < 1
            key = "plan.over_budget_minutes" if minutes else "plan.over_budget_hours"
            speed = t(key, lang=lang, hours=o.time_hours, minutes=o.time_hours * 60)
        words = candidate_words(o.candidate, lang)
        total = money(o.cost.total, plan.currency)
        params = next(p for k, p in o.blockers if k == "plan.block_budget")
        if params.get("message_key") == "plan.block_budget_up_front":  # the outlay broke it
            spend = money(params["spend"], plan.currency)  # (blind w60-05: a $5,317 total
            key = "plan.over_budget_item_up_front"  # named over a $6,000 budget, unexplained)
            return t(key, lang=lang, option=words, spend=spend, total=total, speed=speed)
        return t("plan.over_budget_item", lang=lang, option=words, total=total, speed=speed)

    params = {
        f"items_{lang}": t("plan.list_sep", lang=lang).join(one(o, lang) for o in named)
        for lang in LANGS
    }
    return [("plan.note_over_budget", params)]
