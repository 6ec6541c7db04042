"""A scenario's region: validated the same way everywhere, and matched against offers.

A region is a catalog entry (data/regions.toml) named by id or alias, or one exact cloud region
code that some offer lists; anything else is an error that lists the choices. An offer belongs
to a region when the place its price is quoted for does, so an EU plan is priced from EU offers,
not from a US price that merely lists EU regions as available.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gpuwise.catalog import Catalog
from gpuwise.catalog.names import normalize
from gpuwise.catalog.region_names import in_codes, region_key
from gpuwise.catalog.schema_advise import Region
from gpuwise.catalog.schema_cloud import Offer, Provider
from gpuwise.errors import UserError
from gpuwise.i18n import LANGS

ANY = ("any", "", "all", "anywhere", "不限")


def in_region(region: Region, code: str) -> bool:
    """Whether a cloud region or country code lies in `region`."""
    return in_codes(tuple(region.codes), code)


def find_region(cat: Catalog, name: str) -> Region | None:
    """The region a scenario names (None for 'any'); unknown names are one clear error.

    An exact cloud region code (`eu-central-1`, `cn-huabei2`) becomes a one-code region.
    """
    if name.strip().lower() in ANY:
        return None
    regions: Sequence[Region] = cat.extra("region")
    key = region_key(name)
    for r in regions:
        if key in (region_key(n) for n in (r.id, r.name_en, r.name_zh, *r.aliases)):
            return r
    codes = {c for o in cat.offers for c in o.regions}
    exact = next((c for c in codes if c.lower() == name.strip().lower()), None)
    if exact is not None:
        kind = "cn" if any(r.id == "cn" and in_region(r, exact) for r in regions) else "global"
        buyer = "cn" if kind == "cn" else None
        return Region(
            id=normalize(exact) or "region",
            name_en=exact,
            name_zh=exact,
            kind=kind,
            codes=[exact],
            buyer=buyer,
            source=regions[0].source,
        )
    choices = ", ".join(["any", *(r.id for r in regions)])
    raise UserError("plan.unknown_region", value=name, choices=choices)


def price_region(provider: Provider, offer: Offer) -> str | None:
    """Where the offer's price is quoted for, when the catalog says."""
    return offer.price_region or provider.price_region


def offer_in_region(region: Region, provider: Provider, offer: Offer) -> bool:
    """An offer is in the region when its price's region is (else any listed region is)."""
    if region.id == "global" and not region.codes:
        return provider.region_kind == "global"
    if region.kind == "cn" and provider.region_kind == "cn" and not offer.regions:
        return True
    quoted = price_region(provider, offer)
    if unrecorded(provider, offer):  # unknown is not elsewhere: kept, flagged, ranked after
        hosts_anywhere = provider.hosting == "marketplace"
        return region.kind == "global" and provider.region_kind == "global" and not hosts_anywhere
    codes = [quoted] if quoted else offer.regions
    return any(in_region(region, c) for c in codes) or priced_elsewhere(region, provider, offer)


def priced_elsewhere(region: Region, provider: Provider, offer: Offer) -> bool:
    """The provider sells the instance in the region but the catalog prices it only in another
    (AWS's g6 listed in Seoul, priced for us-east-1): kept at that price with the risk
    `risk.priced_elsewhere`, ranked by that price (ranking.REGION_UNSURE says why), so a
    country the catalog has no price for is not answered with a purchase as if nobody rented
    there (blind w58-01: a Seoul studio told to buy; w55-05: UK rentals left out)."""
    quoted = price_region(provider, offer)
    if not quoted or in_region(region, quoted):
        return False
    return any(in_region(region, c) for c in offer.regions)


def unrecorded(provider: Provider, offer: Offer) -> bool:
    """The catalog's sources give no place for the offer (no region, no price region): it may
    run anywhere the provider does. Such an offer is not "priced elsewhere" (blind w42-02:
    every MI300X rental of a US buyer who asked for AMD left out as elsewhere, and a $40,800
    purchase answered instead); it is kept for a named region outside China with the risk
    `region_unrecorded`, ranked after offers known to be there (ranking.rank_key), unless the
    provider is a marketplace of hosts anywhere (its median is no place's price) or an
    organisation keeps its data in the region (candidates._offer_ok: residency needs a place)."""
    return not offer.regions and price_region(provider, offer) is None


def buyer_of(region: Region | None, currency: str) -> tuple[str | None, bool]:
    """The market whose export rules apply to buying hardware, and whether it was assumed.

    A plan in CNY without a region is taken to be bought in mainland China (the plan says so).
    """
    if region is not None:
        return region.buyer, False
    if currency == "CNY":
        return "cn", True
    return None, False


def flag_unconfirmed_regions(options: list[Any], region: Region | None) -> None:
    """A rental matched to the scenario's region only by a provider's list of every region
    (Lambda's SkyPilot rows list each type in all 17): the risk says to check that the type is
    sold there, which matters most where the region is a data-residency rule (blind w25-04: a
    GH200 "in" europe-central-1 ranked first for a GDPR buyer). Where most of the listed
    regions lie in the named one, the provider plainly operates there and nothing is flagged
    (blind w29-02: Lambda, 10 of its 17 regions in the US, ranked down for a US buyer)."""
    if region is None or (region.id == "global" and not region.codes):
        return
    for o in options:
        c = o.candidate
        p, offer = c.provider, c.offer
        if c.kind != "rent" or p is None or offer is None:
            continue
        if unrecorded(p, offer):
            names = {f"provider_{lang}": getattr(p, f"name_{lang}") for lang in LANGS}
            o.risks.append(("risk.region_unrecorded", {**names, "region": region.id}))
            continue
        if priced_elsewhere(region, p, offer):
            names = {f"provider_{lang}": getattr(p, f"name_{lang}") for lang in LANGS}
            quoted = {"price_region": price_region(p, offer), "region": region.id}
            o.risks.append(("risk.priced_elsewhere", {**names, **quoted}))
            continue
        if not p.regions_unconfirmed:
            continue
        inside = sum(in_region(region, code) for code in offer.regions)
        if price_region(p, offer) is None and 2 * inside <= len(offer.regions):
            names = {f"provider_{lang}": getattr(p, f"name_{lang}") for lang in LANGS}
            o.risks.append(("risk.region_unconfirmed", {**names, "region": region.id}))


def flag_mainland_rentals(options: list[Any], buyer: str | None, currency: str) -> None:
    """A buyer outside mainland China renting on a China-only platform: the account must pass
    the mainland's real-name verification first (Huawei Cloud: a customer buying resources in
    the China region completes real-name authentication first; Alibaba Cloud refuses an
    international-site account without it; some platforms take only a Chinese resident ID),
    the bill is in CNY and the data moves into mainland China (blind w19-05: "any region" sent
    a US company to AutoDL without a word). The risk says so, and the plan ranks these rentals
    after those the buyer can sign up for (ranking.marketplace_tier)."""
    if buyer == "cn" or currency == "CNY":
        return
    for o in options:
        p = o.candidate.provider
        if o.candidate.kind == "rent" and p is not None and p.region_kind == "cn":
            o.risks.append(
                ("risk.mainland_sign_up", {"provider_en": p.name_en, "provider_zh": p.name_zh})
            )
