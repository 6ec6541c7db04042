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


def standing_service(s: Scenario) -> bool:
    """A service its users count on every working day (not a one-off batch)."""
    return s.workload.kind == "serve" and not s.workload.batch_requests()


def racked_service(s: Scenario) -> bool:
    """An organisation's standing service on machines in a room built for servers: they are
    rack servers bought with support, which take passive datacenter cards or blower workstation
    cards, not a consumer card's open-air cooler (the server makers certify no GeForce or
    Radeon RX; NVIDIA's partners build no blower GeForce above 300 W outside China: catalog
    `server_edition_in`). A research box in a server room is not held to it (blind w55-01,
    w56-01: gaming Radeons first for a bank's data centre and a hospital's server room)."""
    in_server_room = s.owned_site() in SERVER_ROOM_SITES
    return s.organisation() and standing_service(s) and in_server_room


def server_grade_host(s: Scenario) -> bool:
    """A company's or an institution's own machine for a service its staff or customers use,
    or any it puts in a server room: ECC memory, remote management and parts rated for
    continuous duty are what its operators buy, and with an entry server for one or two cards
    (catalog host_platform server-entry) they cost a few hundred dollars more than a desktop
    (blind w52-02: a consumer AM5 desktop with 64 GB of non-ECC memory served a manufacturer's
    50 engineers from its server room for three years; w53-01: a law firm's assistant in its
    office). A researcher's training box in an office may stay a desktop."""
    in_server_room = s.owned_site() in SERVER_ROOM_SITES
    return s.organisation() and (standing_service(s) or in_server_room)
