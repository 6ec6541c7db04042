"""A public API keeps one spare copy of the model: N+1 replicas.

Users of a public API expect it up (an SLA to keep), and any single instance goes down at
times: a host fault, a driver update, a cloud's maintenance window, a card that dies. A capacity
planner therefore runs one replica more than the load needs, in every kind of option — an owned
server as much as a data-centre rental (a blind review found the plan priced a standby only for
marketplace hosts, so the comparison was lopsided, and an expert asked for two H100 instances
where the plan rented one). The spare costs one replica's share of the hardware (the instance
hours of a rental; cards, host or system, upkeep and resale of a purchase): an option served
as N copies pays 1/N more, which is why many small replicas fail over cheaply. Power of a spare
that idles is left out (said in the item's name). Marketplace rentals of a 24/7 service already
carry their standby replica (advise.marketplace) and are not charged twice.

Pure: reads and extends the options' cost items.
"""

from __future__ import annotations

from dataclasses import replace

from gpuwise.advise.evaluate import Option
from gpuwise.advise.scenario import Scenario

HARDWARE_ITEMS = ("compute", "cards", "host", "system", "maintenance", "resale")
"""The items one replica's share of which a spare copy costs again."""


def failover_cost(o: Option) -> float:
    """What one spare replica of this option costs: its hardware items over its replicas."""
    replicas = max(1, o.sized.replicas)
    return sum(o.cost.items.get(k, 0.0) for k in HARDWARE_ITEMS) / replicas


def price_public_api_failover(s: Scenario, options: list[Option]) -> None:
    """Add the spare replica (in place) to each option of a public API service that carries
    no standby yet."""
    if not s.public_api or s.workload.kind != "serve":
        return
    for o in options:
        if "standby_replica" in o.cost.items:
            continue
        spare = failover_cost(o)
        if spare <= 0:
            continue  # hardware already owned: the spare is a card the user has or buys later
        o.cost = replace(o.cost, items={**o.cost.items, "failover_replica": spare})
        o.rules.append(("public-api-failover", {"replicas": o.sized.replicas}))
