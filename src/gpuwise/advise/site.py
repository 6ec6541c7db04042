"""Whether an owned card may and can carry a public service where it sits.

Two facts an expert states before any price: NVIDIA licenses the GeForce driver for GeForce
and Titan cards but not for data-centre deployment (the GeForce software licence, §2.1.3 "No
Datacenter Deployment"; catalog rule `geforce-no-datacenter` and its source), and a home or an
office gives a public API none of what an uptime promise rests on (redundant power and
network, cooling, someone on call). So a consumer NVIDIA card bought or owned for a public
API, or placed in a data centre, carries the licence risk, and any owned machine at home or
in an office serving the public carries the uptime risk. For a public API the ranking prefers
a data-centre rental, or a workstation / data-centre card in a server room or data centre, to
either (ranking.rank_key); the option itself is not dropped, since its owner may accept the risk.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpuwise.advise.duty import racked_service
from gpuwise.advise.scenario import Scenario
from gpuwise.catalog import Catalog

if TYPE_CHECKING:
    from gpuwise.advise.evaluate import Option
    from gpuwise.advise.outcome import Plan

HOME_SITES = ("home", "office")
"""Sites without a facility's power, network and staff (scenario `site`)."""
DATA_CENTRE_SITES = ("datacenter", "colocation")
"""A data centre of the owner's or a rented colocation space."""


def geforce_licensed(o: Option) -> bool:
    """The card runs under NVIDIA's GeForce driver licence (a consumer NVIDIA card)."""
    g = o.candidate.gpu
    return g.vendor == "nvidia" and g.gpu_class == "consumer"


def licence_at_risk(s: Scenario, o: Option) -> bool:
    """A GeForce card the user runs themselves as a public service or in a data centre."""
    placed = s.public_api or s.owned_site() in DATA_CENTRE_SITES
    return o.candidate.kind == "own" and geforce_licensed(o) and placed


def unfit_for_public_service(s: Scenario, o: Option) -> bool:
    """An owned or bought machine behind a public API that either runs a GeForce card (the
    licence) or sits at home or in an office (no uptime): ranked after the options without
    those risks (a data-centre rental, or a non-GeForce card in a server room or data centre).
    An expert would not sign a public service on either, whatever it saves."""
    if not s.public_api or o.candidate.kind != "own":
        return False
    return licence_at_risk(s, o) or s.owned_site() in HOME_SITES


def proxy_only(o: Option) -> bool:
    """A rental whose only way in from the internet is the platform's port proxy."""
    p = o.candidate.provider
    return o.candidate.kind == "rent" and p is not None and p.public_endpoint == "platform-proxy"


def site_risks(s: Scenario, o: Option) -> None:
    """The licence and uptime risks of running the option's own machine where it sits, and
    for a public API a rental reachable only through its platform's proxy."""
    if s.public_api and proxy_only(o):
        assert o.candidate.provider is not None
        p = o.candidate.provider
        o.risks.append(
            ("risk.platform_proxy_only", {"provider_en": p.name_en, "provider_zh": p.name_zh})
        )
    if o.candidate.kind != "own":
        return
    if licence_at_risk(s, o):
        o.risks.append(("risk.geforce_licence", {"gpu": o.candidate.gpu.name}))
    elif geforce_licensed(o) and s.organisation() and s.owned_site() == "server-room":
        # an organisation's server room is a small data centre to its auditors (blind w20-04)
        o.risks.append(("risk.geforce_server_room", {"gpu": o.candidate.gpu.name}))
    if s.public_api and s.owned_site() in HOME_SITES:
        o.risks.append(("risk.no_uptime_site", {}))
    g = o.candidate.gpu
    refit = g.gpu_class == "consumer" and g.server_edition_in and racked_service(s)
    if refit and not o.candidate.already_owned:  # only a blower rebuild fits the rack
        o.risks.append(("risk.server_edition_refit", {"gpu": g.name}))


def legacy_driver_risk(cat: Catalog, o: Option) -> None:
    """An owned or bought NVIDIA card whose architecture NVIDIA has moved to a legacy driver
    branch (catalog gpu_arch_support: R580 is the last for Maxwell, Pascal and Volta): it
    runs today, but gets no new driver or CUDA toolkit, which a purchase should weigh."""
    g = o.candidate.gpu
    if o.candidate.kind != "own" or g.vendor != "nvidia" or not g.architecture:
        return
    arch = g.architecture.lower()
    row = next((r for r in cat.extra("gpu_arch_support") if r.arch == arch), None)
    if row is not None and row.last_driver_branch:
        o.risks.append(("risk.legacy_driver", {"gpu": g.name, "branch": row.last_driver_branch}))


def modified_card_risk(o: Option) -> None:
    """A card bought that was modified after sale (catalog `modified`: memory chips replaced,
    as on the 22 GB RTX 2080 Ti of China's second-hand market): no vendor warranty and a fault
    rate nobody publishes, which a buyer weighs beside its price (blind w48-02)."""
    g = o.candidate.gpu
    if o.candidate.kind == "own" and not o.candidate.already_owned and g.modified:
        o.risks.append(("risk.modified_card", {"gpu": g.name}))


def site_rules(plan: Plan) -> list[tuple[str, dict[str, Any]]]:
    """The licence rule, once, naming the first GeForce option it concerns (ranked, then
    those a limit blocked), so a user who owns one hears it even when it is ranked low."""
    s = plan.scenario
    for o in (*plan.options, *plan.infeasible, *plan.unchecked):
        if licence_at_risk(s, o):
            from gpuwise.advise.labels import option_label as _label

            return [("geforce-no-datacenter", {"option": _label(o)})]
    return []
