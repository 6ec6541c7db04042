"""The billing and spot rules of a plan: what the report says about how the rentals it shows
are billed, and why spot capacity was left out. Split from fired.py (one job: the rental's
billing words), which re-exports `money`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpuwise.i18n import LANGS, get_lang, t, unsigned_zero

if TYPE_CHECKING:
    from gpuwise.advise.outcome import Plan
    from gpuwise.advise.scenario import Scenario

Fired = tuple[str, dict[str, Any]]
SYMBOL = {"CNY": "¥", "USD": "$", "EUR": "€"}
SHOWN = 5
"""Options a report shows by default: rules speak about these, not about offers far below."""


def money(amount: float, currency: str) -> str:
    """¥41,844 / $1,234."""
    return f"{SYMBOL.get(currency, '')}{unsigned_zero(f'{amount:,.0f}')}"


def why_no_spot(s: Scenario) -> dict[str, str]:
    """Why spot was left out, in the words of the job it was left out for
    (Scenario.spot_allowed): the scenario's own refusal, or a service (a run with a
    deadline is held to its slack per option instead: margin.spot_slack_check)."""
    key = "plan.no_spot_refused" if s.allow_spot is False else "plan.no_spot_service"
    return {f"reason_{lang}": t(key, lang=lang) for lang in LANGS}


def billing_rule(plan: Plan) -> list[Fired]:
    """Monthly against hourly billing, for the best-ranked offer that has both modes.

    Offers are taken in rank order among the options the report shows (SHOWN), so the
    comparison is about a card the plan would use, not an offer far down the ranking that
    happens to sell both ways (Tencent's monthly V100s under an answer of hourly H800s). Each
    offer is ranked once, in its cheapest mode; the other modes' totals ride along on it
    (advise.billing).
    """
    for o in plan.options[:SHOWN] or plan.infeasible[:SHOWN]:
        c = o.candidate
        if c.kind != "rent" or not c.offer or not c.provider or not c.billing:
            continue
        modes = {c.billing: o.cost.total, **o.billing_alternatives}
        if "monthly" in modes and "on-demand" in modes:
            name = c.provider.name_zh if get_lang() == "zh" else c.provider.name_en
            return [
                (
                    "monthly-billing",
                    {
                        "busy_hours_per_month": o.busy_hours_per_month,
                        "option": f"{name} {c.offer.instance}",
                        "monthly_cost": money(modes["monthly"], plan.currency),
                        "hourly_cost": money(modes["on-demand"], plan.currency),
                    },
                )
            ]
    return []
