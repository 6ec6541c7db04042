"""How long a scenario's machines must stay up: a service kept up around the clock.

Two answers rest on it: a marketplace host's reliability is priced for such a service
(advise/marketplace.py), and a company's own machine for it is a workstation or a server,
not a home desktop (cost.resolve_host `server_grade`).
"""

from __future__ import annotations

from gpuwise.advise.scenario import Scenario

ROUND_THE_CLOCK_HOURS_PER_DAY = 20.0
"""A service up this many hours a day or more has no quiet window in which a vanished host
goes unnoticed: it counts as 24/7."""


def round_the_clock_service(s: Scenario) -> bool:
    """A service that must stay up around the clock (a batch job is restarted, not failed
    over: it has no uptime to keep)."""
    w = s.workload
    return (
        w.kind == "serve"
        and not w.batch_requests()
        and s.hours_per_day >= ROUND_THE_CLOCK_HOURS_PER_DAY
    )


def server_grade_host(s: Scenario) -> bool:
    """A company's or an institution's own machine for a round-the-clock service: ECC memory,
    remote management and parts rated for continuous duty are what its operators buy."""
    return s.organisation() and round_the_clock_service(s)
