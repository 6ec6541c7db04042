"""A service rented by the hour for part of each day: stopped at night, started each morning.

Priced for its busy hours only, a rental is stopped every night and started every morning.
Where the provider hands a stopped instance's GPU back to its market (a per-card container
platform: the instance stays bound to its host and starts again only if that host has a free
card; catalog `restart_bound_to_host`, sourced), a morning may find none free and the
service stays down: a service there is priced running around the clock, as an expert keeps
it, and the saving that stopping would give is said beside it (blind w29-01: a customer-service
bot was answered with four stop-nightly containers on a per-card market). Elsewhere the
stop is priced and its risk said, with what keeping it on would cost (blind w18-01). A
platform with no stop at all (catalog `stop_is_terminate`: Lambda) is the same case: the
morning's instance is a new one from the pool (blind w35-04).

Pure: reads the scenario, the candidate and the option's bill.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpuwise.advise.scenario import Scenario
from gpuwise.catalog.schema_cloud import HOURS_PER_MONTH

if TYPE_CHECKING:
    from gpuwise.advise.candidates import Candidate
    from gpuwise.advise.evaluate import Option

HOURLY = ("on-demand", "spot")
"""Billing modes paid by the hour: the ones a nightly stop saves on."""


def stops_each_night(s: Scenario, c: Candidate) -> bool:
    """A standing service (not a training run or a one-off batch) on an hourly rental for
    less than every hour of the week."""
    w = s.workload
    round_the_clock = s.hours_per_day >= 24 and s.days_per_week >= 7
    standing = w.kind != "train" and not w.one_off()
    return c.kind == "rent" and standing and not round_the_clock and c.billing in HOURLY


def restart_unconfirmed(c: Candidate, container: bool) -> bool:
    """A per-card container platform (cost.toml rental_session kind `container`) whose restart
    behaviour the catalog has no source for: taken as AutoDL's, the sourced case of the kind
    (blind w54-01: a company's chat service was priced stopped nightly on 算家云, where a
    morning with no free card leaves 300 employees without it; kept running, renting cost more
    than owning and the answer flipped)."""
    p = c.provider
    return container and p is not None and p.restart_bound_to_host is None


def loses_gpu_when_stopped(s: Scenario, c: Candidate, container: bool = False) -> bool:
    """The nightly stop would give the GPU back to the provider's market (sourced per
    provider): such a service is kept running instead. Not a person's own use (`local`): a
    morning with no free card costs that person a wait or a move to another host, not a
    service's users their answers, and nobody keeps a card rented all night for three hours
    of chat (blind w51-04: a private assistant 3 h a day was billed around the clock on a
    per-card market, CNY 77k for CNY 10k of hours); its stop is priced, its risk said."""
    p = c.provider
    lost = p is not None and (p.restart_bound_to_host is True or p.stop_is_terminate is True)
    lost = lost or restart_unconfirmed(c, container)
    return lost and stops_each_night(s, c) and s.workload.kind != "local"


def answers_all_hours(s: Scenario, c: Candidate) -> bool:
    """A public API on hourly rentals that would stop outside its busy hours: its users call
    at night too (`hours_per_day` is the busy window, not the hours it answers), so one of
    its machines stays up through the quiet hours (blind w64-05: a customer-service API
    busy 15 h a day was priced switched off every night, 31% below what it costs)."""
    return s.public_api and s.workload.kind == "serve" and stops_each_night(s, c)


def rental_busy_hours(s: Scenario, c: Candidate, busy: float, container: bool = False) -> float:
    """Hours a month each of the option's machines bills, on average: all of them where a
    stop would lose the GPU; a public API's busy hours on every machine and the quiet hours
    on one (`answers_all_hours`), which carries the quiet hours' load alone."""
    if loses_gpu_when_stopped(s, c, container):
        return HOURS_PER_MONTH
    if answers_all_hours(s, c):
        return busy + (HOURS_PER_MONTH - busy) / max(1, c.nodes)
    return busy


def _quiet_hours_rule(s: Scenario, o: Option, busy_hours: float) -> bool:
    """Say that a public API keeps one machine up through its quiet hours (where its bill
    counts them: `rental_busy_hours`); True when it does."""
    from gpuwise.advise.fired_billing import money

    c = o.candidate
    floor = busy_hours + (HOURS_PER_MONTH - busy_hours) / max(1, c.nodes)
    if not answers_all_hours(s, c) or o.busy_hours_per_month > floor * (1 + 1e-9):
        return False  # not a public API, or every machine kept running (kept-running)
    compute = money(o.cost.items.get("compute", 0.0), o.cost.currency)
    params = {"hours": s.hours_per_day, "days": s.days_per_week, "machines": c.nodes}
    o.rules.append(("public-api-quiet-hours", params | {"compute": compute}))
    return True


def restart_note(s: Scenario, o: Option, busy_hours: float) -> None:
    """The rule (kept running, with what stopping would save) or the risk (stopped nightly,
    with what keeping it on would cost) of a standing service on an hourly rental; nothing
    where the two cost the same within 5%. A public API's machine kept up through the quiet
    hours is said first; the others stop, with their risk."""
    c = o.candidate
    if not stops_each_night(s, c) or not o.busy_hours_per_month:
        return
    from gpuwise.advise.fired_billing import money

    compute, cur = o.cost.items.get("compute", 0.0), o.cost.currency
    kept = o.busy_hours_per_month >= HOURS_PER_MONTH * (1 - 1e-9)  # rental_busy_hours said so
    if _quiet_hours_rule(s, o, busy_hours):
        if c.nodes == 1:
            return  # its one machine answers around the clock: nothing stops
        kept = False  # the other machines stop outside the busy hours: their risk below
    if kept:
        stopped = compute * busy_hours / HOURS_PER_MONTH
        if compute > stopped * 1.05:
            assert c.provider is not None
            params: dict[str, object] = {"provider_en": c.provider.name_en}
            params["provider_zh"] = c.provider.name_zh
            params |= {"hours": s.hours_per_day, "days": s.days_per_week}
            params |= {"compute": money(compute, cur), "stopped": money(stopped, cur)}
            rule = "kept-running-no-stop" if c.provider.stop_is_terminate else "kept-running"
            if c.provider.restart_bound_to_host is None and not c.provider.stop_is_terminate:
                rule = "kept-running-unconfirmed"
            o.rules.append((rule, params))
        return
    always_on = compute * HOURS_PER_MONTH / o.busy_hours_per_month
    if always_on > compute * 1.05:
        risk: dict[str, object] = {"hours": s.hours_per_day, "always_on": money(always_on, cur)}
        o.risks.append(("risk.daily_restart", {**risk, "compute": money(compute, cur)}))
