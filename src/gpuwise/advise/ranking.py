"""How the plan orders the options that pass every limit: tiers first (priced, timed, at the
quality floor, fit for the site, a data-centre rental for a public API, a target more hardware
can mend), then money, porting work included (advise/plan.py ranks with it; answers, ties and
the owned-beside step read its tiers)."""

from __future__ import annotations

from typing import Any

from gpuwise.advise.candidates import DOMESTIC_VENDORS
from gpuwise.advise.evaluate import Option, incomplete_capex
from gpuwise.advise.margin import PER_REQUEST_CEILING, option_ranking_total
from gpuwise.advise.marketplace import keeps_data_in_region, on_marketplace
from gpuwise.advise.quality import QUALITY_FLOOR_RISKS
from gpuwise.advise.scenario import Scenario
from gpuwise.advise.site import proxy_only, unfit_for_public_service
from gpuwise.advise.sized import joined_machines


def marketplace_tier(s: Scenario, o: Option) -> bool:
    """Ranked after data-centre rentals: a marketplace host, an office consumer card or a
    rental reachable only through its platform's port proxy for a public API, a marketplace
    host for an organisation that keeps its data in a region."""
    if s.public_api and (on_marketplace(o) or unfit_for_public_service(s, o) or proxy_only(o)):
        return True
    if any(k == "risk.mainland_sign_up" for k, _ in o.risks):
        return True  # a China-only platform for a buyer abroad (regions.flag_mainland_rentals)
    return keeps_data_in_region(s) and on_marketplace(o)


def rented_cluster_unknown(s: Scenario, o: Option) -> bool:
    """Rented machines joined for one job (a training run, a replica over machines) whose
    provider publishes no network between them: timed at the catalog's Ethernet, they may have
    far less (blind w49-02: five RunPod pods for a pre-training run, whose pods talk at 100 Mb/s
    by RunPod's own docs), so they rank after one machine or a published fabric."""
    c = o.candidate
    return (
        c.kind == "rent" and c.nodes > 1 and o.sized.network_assumed and joined_machines(s, o.sized)
    )


REGION_UNSURE = ("risk.region_unconfirmed", "risk.region_unrecorded")
"""Rentals whose presence in the named region the catalog does not confirm: ranked after those
known to be there (advise/regions.py). One sold there but priced for another region
(risk.priced_elsewhere) is no tier: it is there, and its price differs by some per cent, not by
what a purchase it would rank behind costs (blind w58-01)."""

SLOW_END_MISSES = (PER_REQUEST_CEILING, "risk.first_token_band")
"""Limits an option meets only at its central estimate, which no amount of the same hardware
mends (a per-request speed, a prompt's first token: more copies shorten the queue, not the
prefill), so no shortfall factor prices them: the option ranks after those that meet them at
the slow end (blind w57-03: 1.94 s against 2 s asked, 3.21 s at the slow end, ranked first).
Prompts that outrun a copy's prefill at the slow end (risk.prefill_saturated_band) are not
among them: more copies take them."""

TIERS = 8
"""The leading elements of the ranking key that are tiers, not money (rank_key)."""
MARKETPLACE_TIER = 4
"""Where marketplace_tier sits in the ranking key (the tiers before it: priced, timed, at the
quality floor, fit for the site); rented_cluster_unknown follows it."""


def rank_key(s: Scenario, margin: float = 0.0) -> Any:
    """Cheapest first, in tiers: every fully known, fully supported option before one whose
    hardware price or speed is unknown (a floor, a guess), a one-off batch run at the quality
    floor (plan assumption batch_quality_floor_bits: its output is the product) before one
    that only fits below it. Framework or kernel work (partial support) is no tier: each
    partial layer is priced as the weeks of porting it takes in the buyer's wages and ranked
    with the total (advise/porting.py; blind w40-02), unless the team has strong ops
    capacity, owns the cards or prefers domestic chips. A public API (an SLA to keep) prefers
    a data-centre rental to a marketplace host or an office consumer card (advise.site), and
    so does an organisation that keeps its data
    in a region (advise.marketplace.keeps_data_in_region). A rental only listed in the region
    the user named, its presence there unconfirmed, ranks after those priced there (blind
    w27-02: a GH200 listed in all 17 Lambda regions ranked first for a Singapore service;
    advise/regions.flag_unconfirmed_regions), and rented machines joined over a network their
    provider does not publish after those on one machine or a published fabric. An option
    that meets the speed target or deadline only at its central estimate is ranked by its
    total times its shortfall
    factor, what meeting the limit at the slow end of its band would cost (margin.py); one
    whose per-request target no number of replicas reaches at the slow end, or whose first
    token comes within the limit only at the central estimate, ranks after those
    (SLOW_END_MISSES: more hardware is no remedy to price).
    At home (no server room), a bought rack server (loud, hot, kilowatts: risk.server_site)
    ranks after a desktop, a workstation or a rental that does the same job. Hardware the
    user already owns ranks first among options within `margin` of its cost (the prices' own
    uncertainty): nothing to buy, nothing to set up, so a tie goes to it."""

    def key(
        o: Option,
    ) -> tuple[bool, bool, bool, bool, bool, bool, bool, bool, float, float, int, str]:
        total = option_ranking_total(o)  # owned: a shortfall priced as what it would add
        return (
            incomplete_capex(o),
            not o.sized.speed_known,
            any(k in QUALITY_FLOOR_RISKS for k, _ in o.risks),
            s.owned_site() == "home" and any(k.startswith("risk.server_site") for k, _ in o.risks),
            marketplace_tier(s, o),
            rented_cluster_unknown(s, o),
            any(k in REGION_UNSURE for k, _ in o.risks),
            any(k in SLOW_END_MISSES for k, _ in o.risks),
            total / (1 + margin) if o.candidate.already_owned else total / preference(s, o),
            o.time_hours or 0.0,
            o.candidate.nodes,  # a tie goes to one machine, not several joined (blind w39-05)
            o.candidate.label,
        )

    return key


def preference(s: Scenario, o: Option) -> float:
    """How much the buyer's stated preference for Chinese-made accelerators weighs an option's
    total down in the ranking (1 without one; scenario domestic_preference_pct)."""
    pct = s.domestic_preference_pct
    domestic = o.candidate.gpu.vendor in DOMESTIC_VENDORS
    return 1 + pct / 100 if pct and domestic else 1.0
