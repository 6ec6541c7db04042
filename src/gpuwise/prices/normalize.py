"""Feed rows → catalog offers (pure): GPU names mapped to catalog ids, one offer per instance
and region, the validation rules of data-sources.md §7, and what was left out as findings.

Naming: a row in the region a provider's built-in prices are quoted for (`price_region`) keeps
the plain instance name, so it refreshes the built-in offer (billing modes the feed does not
carry, e.g. AWS spot or reserved, are kept from the built-in entry with their own sources).
Rows elsewhere become `"<instance> (<region>)"` with that region as their `price_region`, so an
EU plan is priced from EU rows.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from gpuwise.catalog.catalog import Catalog
from gpuwise.catalog.names import normalize
from gpuwise.catalog.schema_cloud import Offer, Provider


@dataclass(frozen=True)
class FeedRow:
    """One price of one instance in one region, as a feed states it (USD unless said)."""

    provider: str
    instance: str
    gpu_name: str
    gpu_count: float
    region: str
    billing: str
    price_per_hour: float
    vcpu: float | None = None
    ram_gb: float | None = None
    gpu_memory_gb: float | None = None
    published: dt.date | None = None
    currency: str = "USD"


@dataclass
class Findings:
    """What a feed left out and why: reason → count, and names not understood."""

    counts: dict[str, int] = field(default_factory=dict)
    names: dict[str, set[str]] = field(default_factory=dict)

    def add(self, reason: str, name: str = "") -> None:
        """Count one left-out row (and remember its name for the message)."""
        self.counts[reason] = self.counts.get(reason, 0) + 1
        if name:
            self.names.setdefault(reason, set()).add(name)

    def as_list(self) -> list[dict[str, Any]]:
        """JSON shape: reason, count, up to ten example names."""
        return [
            {"reason": r, "count": n, "examples": sorted(self.names.get(r, set()))[:10]}
            for r, n in sorted(self.counts.items())
        ]


def gpu_id(cat: Catalog, name: str, memory_gb: float | None = None) -> str | None:
    """A feed's GPU name as a catalog id: the name with its memory first ("A100 80GB"), then
    the name alone; SkyPilot and gpuhunt names are catalog aliases."""
    tries = []
    if memory_gb:
        tries += [f"{name}-{memory_gb:g}GB", f"{name} {memory_gb:g}GB"]
    tries.append(name)
    for t in tries:
        found = cat.gpu_index.get(normalize(t))
        if found:
            return found
    return None


def _instance_name(provider: Provider | None, instance: str, regions: list[str]) -> str:
    if provider is None or provider.price_region is None or provider.price_region in regions:
        return instance
    return f"{instance} ({regions[0]})" if len(regions) == 1 else f"{instance} ({regions[0]}+)"


def _clean(rows: list[FeedRow], findings: Findings) -> list[FeedRow]:
    """Drop placeholders (non-positive prices, data-sources.md §2.5) and keep the lowest price
    per instance, region and billing (AZ rows of one region)."""
    best: dict[tuple[str, str, str, str], FeedRow] = {}
    for r in rows:
        if not r.price_per_hour > 0 or r.gpu_count <= 0:
            findings.add("placeholder_price", r.instance)
            continue
        k = (r.provider, r.instance, r.region, r.billing)
        if k not in best or r.price_per_hour < best[k].price_per_hour:
            best[k] = r
    return list(best.values())


def _price_set(rows: list[FeedRow], findings: Findings) -> dict[str, FeedRow]:
    """One instance's prices in one region by billing; spot not below on-demand is dropped."""
    by = {r.billing: r for r in rows}
    spot, od = by.get("spot"), by.get("on-demand")
    if spot and od and spot.price_per_hour >= od.price_per_hour:
        findings.add("spot_not_cheaper", spot.instance)
        del by["spot"]
    return by


def offers_from_rows(
    cat: Catalog, provider_id: str, rows: list[FeedRow], source_id: str, findings: Findings
) -> list[dict[str, Any]]:
    """Offer tables (catalog format) for one provider's rows; rows whose GPU the catalog does not
    know are left out and named in the findings."""
    provider = cat.providers.get(provider_id)
    builtin = {o.instance: o for o in cat.offers if o.provider == provider_id}
    mapped: list[tuple[FeedRow, str]] = []
    for r in _clean(rows, findings):
        same = builtin.get(r.instance)  # the catalog's own GPU id is the more precise one
        gid = same.gpu if same is not None else gpu_id(cat, r.gpu_name, r.gpu_memory_gb)
        if gid is None:
            findings.add("unknown_gpu", r.gpu_name)
            continue
        mapped.append((r, gid))
    groups: dict[tuple[str, str, tuple[tuple[str, float], ...]], list[tuple[FeedRow, str]]]
    groups = defaultdict(list)
    per_region: dict[tuple[str, str], list[FeedRow]] = defaultdict(list)
    gpu_of: dict[str, str] = {}
    for r, gid in mapped:
        per_region[(r.instance, r.region)].append(r)
        gpu_of[r.instance] = gid
    for (instance, _region), rs in per_region.items():
        prices = _price_set(rs, findings)
        sig = tuple(sorted((b, round(p.price_per_hour, 6)) for b, p in prices.items()))
        for p in prices.values():
            groups[(instance, gpu_of[instance], sig)].append((p, gpu_of[instance]))
    out: dict[str, dict[str, Any]] = {}
    for (instance, gid, _sig), members in sorted(groups.items(), key=lambda kv: kv[0][:2]):
        regions = sorted({r.region for r, _ in members})
        name = _instance_name(provider, instance, regions)
        if name in out:  # the same instance with other prices in other regions
            name = f"{instance} ({regions[0]})"
        if name in out:
            findings.add("duplicate_instance", name)
            continue
        out[name] = _offer(name, gid, members, regions, source_id, builtin.get(name), findings)
    return list(out.values())


def _offer(
    name: str,
    gid: str,
    members: list[tuple[FeedRow, str]],
    regions: list[str],
    source_id: str,
    known: Offer | None,
    findings: Findings,
) -> dict[str, Any]:
    first = members[0][0]
    by_billing: dict[str, FeedRow] = {}
    for r, _ in members:
        by_billing.setdefault(r.billing, r)
    prices: list[dict[str, Any]] = []
    for billing, r in sorted(by_billing.items()):
        prices.append(
            {
                "billing": billing,
                "amount": round(r.price_per_hour, 6),
                "per": "hour",
                "source": source_id,
                "published": r.published,
            }
        )
    if known is not None:  # keep billing modes the feed does not carry, with their sources
        for p in known.prices:
            if p.billing not in by_billing:
                keep: dict[str, Any] = {"billing": p.billing, "amount": p.amount, "per": p.per}
                keep.update(source=p.source or known.source, published=p.published)
                keep["note"] = p.note or None
                prices.append(keep)
    od = next((p["amount"] for p in prices if p["billing"] == "on-demand"), None)
    spot = next((p for p in prices if p["billing"] == "spot"), None)
    if od is not None and spot is not None and spot["amount"] >= od and spot["per"] == "hour":
        findings.add("spot_not_cheaper", name)
        prices.remove(spot)
    count = first.gpu_count
    offer: dict[str, Any] = {
        "instance": name,
        "gpu": gid,
        "gpu_count": int(count) if float(count).is_integer() else count,
        "vcpu": first.vcpu if first.vcpu else None,
        "ram_gb": first.ram_gb if first.ram_gb else None,
        "regions": regions,
        "price_region": regions[0] if len(regions) == 1 else None,
        "source": source_id,
        "prices": prices,
    }
    if known is not None:
        offer["node_gpus"] = known.node_gpus
    return offer


_SAFE = re.compile(r"[^a-z0-9-]+")


def source_id(feed: str, provider: str) -> str:
    """A source id for one feed's rows of one provider (global across the catalog)."""
    return f"feed-{_SAFE.sub('-', feed.lower())}-{_SAFE.sub('-', provider.lower())}"
