"""One rental per offer: the cheapest way to buy the hours this work needs, and the others.

An offer sold by the hour, by the month and by the year bills the same machine; which is
cheapest depends only on how much of each period the work fills. The planner keeps that one
(a monthly or yearly commitment only where the use fills it), remembers what the others would
have cost, and says so, instead of ranking the same machine three times. Spot is another
product (it can be taken back) and stays a separate option.
"""

from __future__ import annotations

from gpuwise.advise.evaluate import Option
from gpuwise.i18n import t

SEPARATE = ("spot",)
"""Billing modes that are not the same capacity bought another way."""


def _money(amount: float, currency: str) -> str:
    from gpuwise.advise.fired import money

    return money(amount, currency)


def _label(o: Option) -> str:
    from gpuwise.advise.labels import option_label

    return option_label(o)


def cheapest_billing(options: list[Option]) -> list[Option]:
    """The options with each offer's committed and on-demand modes reduced to the cheapest;
    the chosen one carries the others' totals (`billing_alternatives`) and a rule saying why."""
    out: list[Option] = []
    groups: dict[tuple[str, str, int], list[Option]] = {}
    for o in options:
        c = o.candidate
        if c.kind != "rent" or c.billing in SEPARATE or not c.offer or not c.provider:
            out.append(o)
            continue
        groups.setdefault((c.provider.id, c.offer.instance, c.nodes), []).append(o)
    for group in groups.values():
        best = min(group, key=lambda o: (o.cost.total, o.candidate.billing or ""))
        others = {o.candidate.billing or "": o.cost.total for o in group if o is not best}
        best.billing_alternatives = others
        if others:
            best.rules.append(("billing-chosen", _chosen_params(best, others)))
        out.append(best)
    return out


def _chosen_params(best: Option, others: dict[str, float]) -> dict[str, object]:
    """The numbers of the billing-chosen rule: the mode kept, the hours it buys, the others."""
    cur = best.cost.currency
    listed = ", ".join(
        t("plan.billing_alternative", billing=t(f"billing.{b}"), cost=_money(v, cur))
        for b, v in sorted(others.items(), key=lambda kv: kv[1])
    )
    return {
        "option": _label(best),
        "billing": t(f"billing.{best.candidate.billing}"),
        "busy_hours": best.cost.details.get("busy_hours", 0.0),
        "cost": _money(best.cost.total, cur),
        "others": listed,
    }
