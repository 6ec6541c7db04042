"""How long a scenario's machines must stay up: a service kept up around the clock.

Two answers rest on it: a marketplace host's reliability is priced for such a service
(advise/marketplace.py), and a company's own machine for it (or any it keeps in a server room)
is a workstation or a server, not a home desktop (cost.resolve_host `server_grade`).
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


SERVER_ROOM_SITES = ("server-room", "datacenter", "colocation")
"""Rooms built for servers: what an organisation puts there is administered remotely."""


def server_grade_host(s: Scenario) -> bool:
    """A company's or an institution's own machine for a round-the-clock service, or any it
    puts in a server room: ECC memory, remote management and parts rated for continuous duty
    are what its operators buy (blind w52-02: a consumer AM5 desktop with 64 GB of non-ECC
    memory served a manufacturer's 50 engineers from its server room for three years)."""
    in_server_room = s.owned_site() in SERVER_ROOM_SITES
    return s.organisation() and (round_the_clock_service(s) or in_server_room)
