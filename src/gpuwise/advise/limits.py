"""An option against the scenario's limits: the budget, the deadline, the speed it asks.

Three outcomes per option: it breaks a limit (a blocker: over budget, past the deadline, too
slow), a limit cannot be checked because a number is missing (unchecked: a card with no price
against a budget, a speed the catalog cannot estimate against a target or a deadline), or it
passes. Only options that pass are ranked; the unchecked are listed apart, never as winners.
A budget is what may be paid out: a monthly one against the monthly cost, a total one against
the money spent before any resale.
"""

from __future__ import annotations

import math
from typing import Any

from gpuwise.advise.evaluate import CAPEX_ITEMS, Option, incomplete_capex
from gpuwise.advise.failover import spare_capital
from gpuwise.advise.margin import (
    deadline_check,
    month_hours_check,
    per_request_check,
    throughput_check,
)
from gpuwise.advise.scenario import Scenario
from gpuwise.advise.sized import Sized

Fired = tuple[str, dict[str, Any]]


def spend_of(s: Scenario, o: Option) -> float:
    """What the budget is checked against: the monthly cost for a monthly budget; for a total
    budget, the larger of the project's whole cost and what is paid at once for the hardware.
    A resale at the end can take off running costs over the project, but it cannot pay for
    the purchase it follows (blind w30-03: a CNY 2.25M server passed a CNY 2M budget on a
    CNY 674k resale three months later), while a hobbyist's USD 3,840 pair of cards fits USD
    4,000 though three years of power come on top before it is sold (blind w32-05)."""
    if s.budget and s.budget.per == "month":
        return o.cost.monthly
    return max(o.cost.total, paid_at_once(s, o))


def paid_at_once(s: Scenario, o: Option) -> float:
    """What a purchase pays before it runs: its cards, host or system, and the spare's (0 for
    a rental, whose bill comes by the hour or month)."""
    if o.candidate.kind != "own" or o.candidate.already_owned:
        return 0.0
    capital = sum(o.cost.items.get(k, 0.0) for k in ("cards", "host", "system"))
    return capital + spare_capital(s, o)  # the hot spare is bought too (blind w25-01)


def resale_credit(o: Option) -> float:
    """What reselling the bought hardware at the end takes off its total (0 for none)."""
    return max(0.0, -o.cost.items.get("resale", 0.0))


def capital_up_front(s: Scenario, o: Option, budget_in_ctx: float) -> None:
    """A purchase checked against a monthly budget is checked spread over the project, less
    its resale; where what is paid at once is more than a month's budget, the risk says so
    (blind w24-03: a $515k server under a $40k monthly budget, with no word of the outlay)."""
    if s.budget is None or s.budget.per != "month":
        return
    capital = paid_at_once(s, o)  # 0 for a rental or owned hardware
    if capital > budget_in_ctx:
        from gpuwise.advise.fired_billing import money

        params = {"capital": money(capital, o.cost.currency), "months": capital / budget_in_ctx}
        o.risks.append(("risk.capital_up_front", params))


def budget_edge(o: Option, spend: float, budget_in_ctx: float, margin: float) -> None:
    """An option over the budget by less than its prices are sure to (plan assumption
    price_uncertainty_fraction) is at the budget: a quote may come in under it as easily as
    over it, so it is ranked with its risk said, not cut (blind w59-03: a used-3090 build CNY
    266 over a CNY 12,000 budget left out for a 3-bit 2080 Ti 22G)."""
    from gpuwise.advise.fired_billing import money

    over = spend - budget_in_ctx
    params = {
        "spend": money(spend, o.cost.currency),
        "budget": money(budget_in_ctx, o.cost.currency),
        "over_pct": over / budget_in_ctx,
        "margin": margin,
    }
    o.risks.append(("risk.budget_edge", params))


def check_constraints(
    s: Scenario,
    o: Option,
    budget_in_ctx: float | None,
    reading_floor: float | None = None,
    price_margin: float = 0.0,
) -> None:
    """Hard limits: budget, deadline, throughput target, hours in a month.

    `reading_floor` (tokens/s for all requests together) applies where the scenario sets no
    target or a lower one: a model that answers each user slower than people read is no
    service. A card
    whose speed is unknown is not held to it (its risk says so). Speed limits and deadlines
    are checked at the slow end of the estimate's error band: an option that meets one only at
    its central estimate carries a risk and ranks after the others (advise/margin.py says why).

    A limit that needs a number the catalog lacks is recorded as unchecked, not passed; a priced
    part that alone breaks the budget still blocks. A spend over the budget by no more than the
    prices' own uncertainty (`price_margin`) is at the budget, not over it (budget_edge).
    """
    w = s.workload
    if budget_in_ctx is not None and s.budget is not None:
        capital_up_front(s, o, budget_in_ctx)
        spend = spend_of(s, o)
        edge = budget_in_ctx < spend <= budget_in_ctx * (1 + price_margin)
        if edge and not incomplete_capex(o):  # a partly priced spend is only a floor
            budget_edge(o, spend, budget_in_ctx, price_margin)
        elif spend > budget_in_ctx:
            params: dict[str, Any] = {"spend": spend, "budget": budget_in_ctx}
            if s.budget.per != "month" and o.cost.total <= budget_in_ctx:  # only a resale fits it
                params |= {"resale": resale_credit(o), "total": o.cost.total}
                params["message_key"] = "plan.block_budget_up_front"
            o.blockers.append(("plan.block_budget", params))
        elif incomplete_capex(o):
            missing = sorted(CAPEX_ITEMS & set(o.cost.unpriced))
            o.unchecked.append(("plan.unchecked_budget", {"item_ids": tuple(missing)}))
    timed = w.one_off()
    if timed and not o.sized.speed_known:
        o.unchecked.append(("plan.unchecked_hours", {"gpu": o.candidate.gpu.id}))
    # targets and deadlines are checked at the slow end of the error band (advise/margin.py)
    checks: list[tuple[str, Fired] | None] = []
    if s.deadline_days and o.time_hours:
        checks.append(deadline_check(o.sized, o.time_hours, s.deadline_days))
    if o.sized.companion_share >= 1:  # the companions' stated load alone fills the devices
        o.blockers.append(("plan.block_companions_fill", {"share": o.sized.companion_share}))
    elif w.kind != "train" and w.target_tokens_per_s:
        if not o.sized.speed_known:
            o.unchecked.append(("plan.unchecked_speed", {"gpu": o.candidate.gpu.id}))
        else:
            found = throughput_check(o.sized, w.target_tokens_per_s)
            each = w.target_tokens_per_s_per_request
            checks.append(per_request_check(o.sized, each, found))
    if w.kind != "train" and w.first_token_s and o.sized.speed_known:
        arrivals, in_flight = prompt_arrivals(s, o.sized), prompts_in_flight(s, o.sized)
        checks.append(first_token_check(o.sized, w.first_token_s, arrivals, in_flight))
    below_floor = bool(reading_floor) and (w.target_tokens_per_s or 0.0) < (reading_floor or 0.0)
    if w.kind != "train" and reading_floor and below_floor and o.sized.speed_known:
        checks.append(throughput_check(o.sized, reading_floor, floor=True))
    for found in checks:
        if found is not None:
            (o.blockers if found[0] == "blocker" else o.risks).append(found[1])
    if timed and o.time_hours and o.sized.speed_known:  # a month's runs at the band's long end
        tight = month_hours_check(o.sized, o.time_hours, w.runs_per_month)
        o.risks += [tight] if tight else []
    if o.cost.months > s.months * (1 + 1e-9):  # the runs outlast the project on this option
        needed = o.busy_hours_per_month * o.cost.months / s.months
        o.blockers.append(
            ("plan.block_hours", {"hours": needed, "months": o.cost.months, "project": s.months})
        )


def prompt_arrivals(s: Scenario, sized: Sized) -> float:
    """Prompts a second each copy receives at the stated load (the target's output tokens over
    each answer's length, shared by the copies); 0 where the scenario states no rate."""
    w = s.workload
    if not w.target_tokens_per_s or not w.gen_tokens or w.batch_requests():
        return 0.0
    return w.target_tokens_per_s / w.gen_tokens / max(1, sized.replicas)


def prompts_in_flight(s: Scenario, sized: Sized) -> int | None:
    """The most prompts one copy holds at once: the scenario's requests in flight shared by
    the copies (None where it states none)."""
    n = s.workload.concurrency
    return -(-n // max(1, sized.replicas)) if n else None


def queued_wait(prefill_s: float, arrivals_per_s: float, in_flight: int | None = None) -> float:
    """A prompt's mean wait for its first token with others arriving at random: its own
    prefill plus the queue ahead of it, the Pollaczek-Khinchine mean for a deterministic
    service (M/D/1): W = S + rho S / (2 (1 - rho)), rho = arrivals x S. Infinite where prompts
    arrive faster than the copy prefills them. A lower bound: the decode steps an engine
    interleaves with the prefills slow them further.

    With at most `in_flight` requests in a copy at once (users who send the next prompt after
    the answer), a prompt waits behind at most in_flight - 1 others: the wait is at most
    in_flight prefills, however fast the open queue's arrivals would come (blind w60-05: one
    user at a time was told the queue for the first token grows without end)."""
    most = in_flight * prefill_s if in_flight else math.inf
    rho = arrivals_per_s * prefill_s
    if rho >= 1.0:
        return most
    return min(most, prefill_s + rho * prefill_s / (2.0 * (1.0 - rho)))


def first_token_check(
    sized: Sized, limit_s: float, arrivals_per_s: float = 0.0, in_flight: int | None = None
) -> tuple[str, Fired] | None:
    """The wait for the first token against the scenario's `first_token_s`: None within it
    at the slow end of the band; a risk when only the central estimate is; a blocker when not
    even that. At the stated load a prompt queues behind the others arriving (queued_wait:
    blind w53-03, a voice agent's 300 ms was checked on an idle engine while its copies ran
    their prefills 70-90% busy)."""
    speed = sized.speed
    alone = speed.time_to_first_token_s
    if not alone:
        return None
    band = (speed.band or {}).get("time_to_first_token_s")
    wait = queued_wait(alone, arrivals_per_s, in_flight)
    slow = queued_wait(max(band) if band else alone, arrivals_per_s, in_flight)
    if slow <= limit_s:
        return None
    params = {"seconds": wait, "slow_seconds": slow, "limit": limit_s, "alone": alone}
    if math.isinf(slow):  # the prompts outrun the prefill: the queue grows without end
        params = {"arrivals": arrivals_per_s, "capacity": 1.0 / (max(band) if band else alone)}
        if math.isinf(wait):
            return ("blocker", ("plan.block_prefill_saturated", params))
        if wait > limit_s:
            slow_params = {"seconds": wait, "limit": limit_s, "alone": alone}
            return ("blocker", ("plan.block_first_token_saturated", slow_params | params))
        return ("risk", ("risk.prefill_saturated_band", params | {"seconds": wait}))
    if wait <= limit_s:
        return ("risk", ("risk.first_token_band", params))
    return ("blocker", ("plan.block_first_token", params))
