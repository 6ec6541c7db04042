"""Keep owned machines serving beside added ones when they no longer carry the service alone.

A team whose owned 4 × A100 box served 32 users and now has 64 asks "what do I add?". A
careful expert keeps the box serving the requests it carries and buys or rents capacity for
the rest, both behind one load balancer; costing every option as if the fleet started from
zero spends twice the capital and leaves the owned cards idle (blind w17-05). Here:

1. the owned share: the most requests in flight the owned hardware alone still serves at the
   per-request pace the scenario asks (the plan run on the owned candidates only, bisected
   over the requests: the same feasibility rule as an owned option for the whole load);
2. the rest: the plan run again for the remaining requests and their share of the target,
   with nothing owned (the added hardware brings its own host);
3. each of the rest's best options becomes an option of this plan: its hardware plus the
   owned share's running cost, the two speeds added, checked against the whole target at the
   slow end of both bands (advise/margin.py) and the budget.

Serving only (a training run or a one-off batch is one job on one fleet: owned_extend.py and
the deadline's options cover it), and only where the owned hardware fits the model but is too
slow for the load (too small to fit is owned_extend.py's case).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from gpuwise.advise.evaluate import Option
from gpuwise.advise.fixes import Replan
from gpuwise.advise.limits import spend_of
from gpuwise.advise.margin import BAND_RISKS, at_risk_of_missing, slow_tokens_per_s
from gpuwise.advise.outcome import Plan
from gpuwise.advise.scenario import Scenario
from gpuwise.cost.model import combined

REST_OPTIONS = 4
"""The rest's best options kept as options of this plan (enough for a bought and a rented one
to both reach the ranking)."""


def too_slow_owned(s: Scenario, infeasible: list[Option]) -> Option | None:
    """The owned option for the whole load that fits but misses only the speed target: the
    fastest of them (all the owned cards, usually); None where none is."""
    if s.workload.kind != "serve" or not s.owns or not s.workload.target_tokens_per_s:
        return None
    if s.workload.one_off():
        return None
    slow_only = [
        o
        for o in infeasible
        if o.candidate.already_owned
        and not o.candidate.owned_kept
        and not o.candidate.offload_fraction
        and o.sized.speed_known
        and {k for k, _ in o.blockers} == {"plan.block_throughput"}
    ]
    return max(slow_only, key=lambda o: o.sized.tokens_per_s, default=None)


def _share_patch(s: Scenario, requests: int) -> dict[str, Any]:
    """The workload of `requests` of the scenario's requests in flight, with their share of
    its target (a per-request target stays what it is)."""
    w = s.workload
    share = (w.target_tokens_per_s or 0.0) * requests / w.concurrency
    return {"workload": {"concurrency": requests, "target_tokens_per_s": share}}


def at_risk_owned(s: Scenario, ranked: list[Option]) -> Option | None:
    """The best-ranked option on all the owned hardware where it meets the service's target
    only at its central estimate: what to add to be sure of it is the question an owner asks
    (blind w37-04: two owned RTX 4090s 1.5x short at the slow end, and the plan named nothing
    to add). None where an owned option holds the target at the slow end, or none ranks."""
    if s.workload.kind != "serve" or not s.owns or not s.workload.target_tokens_per_s:
        return None
    if s.workload.one_off():
        return None
    owned = [o for o in ranked if o.candidate.already_owned and not o.candidate.offload_fraction]
    if not owned or not all(at_risk_of_missing(o.risks) for o in owned):
        return None
    return max(owned, key=lambda o: o.sized.tokens_per_s)


def owned_share(
    s: Scenario, too_slow: Option, replan: Replan, sure: bool = False
) -> tuple[int, Option] | None:
    """The most requests the owned hardware carries alone, and its option serving them.

    Bisection on feasibility, which falls with the requests. Its speed at the whole load does
    not bound the search: with fewer requests in flight the cards may hold a less compressed
    format or another layout and serve more than their whole-load rate (4 x A100 carried 35
    of 64 requests where 64 × their whole-load rate ÷ the target said 34)."""
    low, high, best = 0, s.workload.concurrency - 1, None
    while low < high:
        n = (low + high + 1) // 2
        found = _owned_alone(replan(s, _share_patch(s, n), only_owned=True), too_slow)
        if found is not None and sure and at_risk_of_missing(found.risks):
            found = None  # `sure`: its share is what it carries at the slow end of its band
        if found is None:
            high = n - 1
        else:
            low, best = n, found
    return (low, best) if best is not None else None


def _owned_alone(plan: Plan, like: Option) -> Option | None:
    """The plan's ranked option on the same owned cards as `like`, if any."""
    c = like.candidate
    for o in plan.options:
        if o.candidate.already_owned and (o.candidate.gpu.id, o.candidate.count) == (
            c.gpu.id,
            c.count,
        ):
            return o
    return None


def beside_options(
    s: Scenario, too_slow: Option, replan: Replan, sure: bool = False
) -> list[Option]:
    """Options that keep the owned hardware serving its share and add the rest's best options
    beside it; [] where the owned hardware carries no request alone or nothing serves the rest.
    `sure`: the owned share is what it carries at the slow end of its band."""
    found = owned_share(s, too_slow, replan, sure)
    if found is None:
        return []
    requests, owned = found
    patch = _share_patch(s, s.workload.concurrency - requests)
    # the added hardware stands where the owned machines do (the plan's site), not where a
    # scenario without them would put it (a public API's colocation rack)
    patch.update({"owns": [], "owns_host": False, "budget": None, "site": s.owned_site()})
    rest = replan(s, patch)
    return [_together(s, owned, requests, added) for added in rest.options[:REST_OPTIONS]]


def _together(s: Scenario, owned: Option, requests: int, added: Option) -> Option:
    """The added option with the owned share beside it: one bill, the two speeds added."""
    kept = ((owned.candidate.gpu.id, owned.candidate.cards or owned.candidate.count),)
    risks: list[tuple[str, dict[str, Any]]] = []
    for k, p in (*added.risks, *owned.risks):  # the band is checked on the two together
        if k not in BAND_RISKS and all(k != seen for seen, _ in risks):
            risks.append((k, p))
    option = replace(
        added,
        candidate=replace(added.candidate, beside_owned=kept),
        cost=combined(added.cost, owned.cost),  # the owned share's running cost added
        risks=risks,
        rules=[*added.rules, *_beside_rule(s, owned, requests, added)],
        blockers=[],
        prices=tuple(dict.fromkeys((*added.prices, *owned.prices))),
        beside=owned,
        billing_alternatives={},
    )
    return option


def _beside_rule(
    s: Scenario, owned: Option, requests: int, added: Option
) -> list[tuple[str, dict[str, Any]]]:
    c = owned.candidate
    return [
        (
            "owned-beside",
            {
                "owned": c.gpu.name,
                "count": c.cards or c.count,
                "requests": requests,
                "total": s.workload.concurrency,
                "rest": s.workload.concurrency - requests,
                "owned_tokens_per_s": round(owned.sized.tokens_per_s, 1),
                "owned_quant": owned.sized.quant,
                "added_tokens_per_s": round(added.sized.tokens_per_s, 1),
            },
        )
    ]


def check_beside(s: Scenario, o: Option, budget: float | None) -> None:
    """The limits on the two together: the whole target at the slow end of both bands (the
    sum of each part's slow end), and the budget on the one bill."""
    assert o.beside is not None
    target = s.workload.target_tokens_per_s or 0.0
    central = o.sized.tokens_per_s + o.beside.sized.tokens_per_s
    slow = slow_tokens_per_s(o.sized) + slow_tokens_per_s(o.beside.sized)
    if slow < target:
        params = {"tps": central, "low": slow, "target": target, "factor": target / slow}
        if central >= target:
            o.risks.append(("risk.throughput_band", params))
        else:
            o.blockers.append(("plan.block_throughput", params))
    if budget is not None and s.budget is not None and spend_of(s, o) > budget:
        o.blockers.append(("plan.block_budget", {"spend": spend_of(s, o), "budget": budget}))


def with_owned_beside(
    s: Scenario,
    ranked: list[Option],
    infeasible: list[Option],
    budget: float | None,
    replan: Replan,
    rank: Callable[[Option], Any],
) -> tuple[list[Option], list[Option]]:
    """The ranking with the options that keep owned hardware, too slow for the whole load,
    serving its share beside added hardware, checked (check_beside) and ranked by the plan's
    own key (`rank`); the owned option for the whole load stays infeasible."""
    too_slow, sure = too_slow_owned(s, infeasible), False
    if any(o.candidate.already_owned for o in ranked):
        too_slow, sure = at_risk_owned(s, ranked), True
    if too_slow is None:
        return ranked, infeasible
    added = beside_options(s, too_slow, replan, sure)
    for o in added:
        check_beside(s, o, budget)
    ranked = sorted([*ranked, *(o for o in added if o.feasible)], key=rank)
    infeasible = [*infeasible, *(o for o in added if not o.feasible)]
    return ranked, infeasible


__all__ = [
    "at_risk_owned",
    "beside_options",
    "check_beside",
    "too_slow_owned",
    "with_owned_beside",
]
