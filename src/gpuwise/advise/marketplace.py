"""Marketplace hosts (Vast.ai's community cloud and other peer-to-peer GPU markets).

A marketplace lists machines that their owners run, from a gaming PC to a data centre, with no
service agreement: a host may reboot or leave. For a service kept up around the clock that is a
cost, not only a caveat, so it is priced in: the provider's published availability where it
has one (the expected hours down, bought again from the same market), else a standby replica
(cost.toml `marketplace_standby_fraction`, an explicit assumption). Batch work is left as it
is: a checkpointed run restarts elsewhere.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from gpuwise.advise.duty import round_the_clock_service
from gpuwise.advise.evaluate import Option
from gpuwise.advise.scenario import Scenario
from gpuwise.catalog import Catalog
from gpuwise.cost.power import assumption


def on_marketplace(o: Option) -> bool:
    """The option rents a peer-to-peer marketplace host."""
    p = o.candidate.provider
    return o.candidate.kind == "rent" and p is not None and p.hosting == "marketplace"


def _premium_share(cat: Catalog, availability: float | None) -> float:
    """The share of the compute bill the risk costs: the hours a published availability loses,
    bought again, else a standby replica."""
    if availability is not None:
        return 1.0 / availability - 1.0
    return assumption(cat, "marketplace_standby_fraction").value


def price_marketplace_risk(cat: Catalog, s: Scenario, options: list[Option]) -> None:
    """Add the reliability premium, the risk and the rule to each marketplace rental of a
    24/7 service (in place: the options are the planner's own)."""
    if not round_the_clock_service(s):
        return
    for o in options:
        if not on_marketplace(o) or "compute" not in o.cost.items:
            continue
        provider = o.candidate.provider
        assert provider is not None
        share = _premium_share(cat, provider.availability)
        premium = o.cost.items["compute"] * share
        o.cost = replace(o.cost, items={**o.cost.items, "standby_replica": premium})
        params: dict[str, Any] = {"provider_en": provider.name_en, "provider_zh": provider.name_zh}
        o.risks.append(("risk.marketplace", params))
        o.rules.append(("marketplace-host", {**params, "pct": share}))


def keeps_data_in_region(s: Scenario) -> bool:
    """Scenario.keeps_data_in_region: residency is a legal duty for an organisation that
    names its region."""
    return s.keeps_data_in_region()


def flag_marketplace_data(s: Scenario, options: list[Option]) -> None:
    """Mark each marketplace rental of an organisation (in place): the host is whoever listed
    the machine, with no data processing agreement or certification behind it, whatever the
    job sends there (a training set, or a batch of customers' documents: blind w23-05 saw the
    risk for the one and not the other). The ranking puts it after rentals from a provider's
    own data centres only where the organisation keeps its data in a region (ranking.rank_key)."""
    if not s.organisation():
        return
    for o in options:
        if on_marketplace(o):
            provider = o.candidate.provider
            assert provider is not None
            params = {"provider_en": provider.name_en, "provider_zh": provider.name_zh}
            o.risks.append(("risk.marketplace_data", params))
