"""Rentals left out by the default device cap: what renting would cost with more devices.

`max_gpus` defaults to 8, one machine. Where no rental of that size meets the scenario and the
answer is a purchase (a 671B MoE at 3,000 tokens/s: one bought 8-GPU server and its spare
fit, no single rented node does), the plan used to show no rental at all, with no word of why
(blind w43-04: "owning wins" over rentals never ranked). An expert says what renting would
take: the plan is run again with three machines' worth of devices and the first rental is
quoted beside the answer. Only where the scenario left `max_gpus` to its default (a stated
limit is the user's), rentals are allowed, and the plan ranked none.

Pure: the replanning comes in as a callable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpuwise.advise.fixes import Replan
    from gpuwise.advise.outcome import Plan

Fired = tuple[str, dict[str, Any]]
WIDER_MACHINES = 3
"""How many machines' worth of devices the second plan allows (the default cap is one)."""


def wider_rental_note(plan: Plan, replan: Replan) -> list[Fired]:
    """The ⓘ line quoting the first rental with more devices allowed; [] where a rental is
    ranked already, the cap was set, rentals are barred, or more devices find none."""
    s = plan.scenario
    if not plan.options or "max_gpus" in s.model_fields_set or not s.data_may_leave:
        return []
    if s.workload.kind == "local" or any(o.candidate.kind == "rent" for o in plan.options):
        return []
    wider = WIDER_MACHINES * s.max_gpus
    again = replan(s, {"max_gpus": wider})
    found = next((o for o in again.options if o.candidate.kind == "rent"), None)
    if found is None:
        return []
    from gpuwise.advise.fired_billing import money
    from gpuwise.advise.labels import candidate_words
    from gpuwise.i18n import LANGS

    first = plan.options[0]
    params: dict[str, Any] = {f"option_{x}": candidate_words(found.candidate, x) for x in LANGS}
    params |= {"most": s.max_gpus, "wider": wider, "devices": found.candidate.count}
    params |= {"total": money(found.cost.total, plan.currency)}
    params["ratio"] = found.cost.total / first.cost.total if first.cost.total > 0 else 0.0
    return [("plan.note_rental_with_more", params)]


SCALE_OUT_MACHINES = 4
"""How many machines' worth of devices the second plan of a service that scales by copies
allows (the default cap is one machine's 8)."""


def wider_copies_note(plan: Plan, replan: Replan, margin: float) -> list[Fired]:
    """The ⓘ line quoting a cheaper answer with more devices where the default cap binds: a
    service (or a batch with a deadline) that meets its load by copies and whose answer fills
    the default `max_gpus` (blind w61-05: a reranker at 5.4M tokens/s answered with a DGX B200
    and a second one as its spare, USD 1.03M, where 32 RTX PRO 6000 in four machines do it for
    USD 353k). The plan is run again with SCALE_OUT_MACHINES machines' worth of devices and its
    first option quoted where it costs less by more than the prices' uncertainty. Only where
    `max_gpus` is the default (a stated limit is the user's)."""
    s, w = plan.scenario, plan.scenario.workload
    if not plan.options or "max_gpus" in s.model_fields_set or w.kind != "serve":
        return []
    if not (w.target_tokens_per_s or (w.batch_requests() and s.deadline_days)):
        return []
    first = plan.options[0]
    if first.candidate.count < s.max_gpus:  # the devices of all its machines
        return []
    wider = SCALE_OUT_MACHINES * s.max_gpus
    again = replan(s, {"max_gpus": wider})
    if not again.options:
        return []
    from gpuwise.advise.margin import option_ranking_total

    # compared as the ranking compares them: a wider option that meets the target only at
    # its central estimate is priced with what the slow end would add (blind w66-02: an int4
    # option short at the slow end was quoted at 0.40x an answer held to it)
    found = again.options[0]
    insured = option_ranking_total(found)
    if insured >= option_ranking_total(first) * (1 - margin):
        return []
    from gpuwise.advise.fired_billing import money
    from gpuwise.advise.labels import candidate_words
    from gpuwise.i18n import LANGS

    params: dict[str, Any] = {f"option_{x}": candidate_words(found.candidate, x) for x in LANGS}
    params |= {"most": s.max_gpus, "wider": wider, "total": money(found.cost.total, plan.currency)}
    params["ratio"] = found.cost.total / first.cost.total if first.cost.total > 0 else 0.0
    # the cap that admits it, not the one searched (blind w65-02: "set max_gpus: 32" for 16)
    params["set_to"] = min(wider, max(found.candidate.count, s.max_gpus + 1))
    if insured > found.cost.total * (1 + 1e-6):  # met only at its central estimate: said
        params["insured"] = money(insured, plan.currency)
        return [("plan.note_copies_with_more_central", params)]
    return [("plan.note_copies_with_more", params)]
