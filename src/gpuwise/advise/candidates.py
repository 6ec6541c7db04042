"""Every hardware option a scenario could use: GPUs to buy (1/2/4/8) and cloud offers by billing.

Options the scenario rules out (data may not leave, domestic hardware only, region) are kept
aside with the rule that dropped them, so the report can say why they are missing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpuwise.advise.scenario import Scenario
from gpuwise.catalog import Catalog
from gpuwise.catalog.schema import Gpu
from gpuwise.catalog.schema_cloud import Offer, Provider

COUNTS = (1, 2, 4, 8)
DOMESTIC_VENDORS = ("huawei",)
"""Vendors that satisfy a 国产化 requirement (Huawei Ascend in this catalog)."""


@dataclass(frozen=True)
class Candidate:
    """One way to get the hardware: own `count` × `gpu`, or rent `offer` in `billing` mode."""

    kind: str
    gpu: Gpu
    count: int
    offer: Offer | None = None
    provider: Provider | None = None
    billing: str | None = None
    already_owned: bool = False
    unpriced_card: bool = False

    @property
    def label(self) -> str:
        """Human-readable id: 'own:rtx-4090×2' or 'aliyun:ecs.gn7i:spot'."""
        if self.offer and self.provider:
            return f"{self.provider.id}:{self.offer.instance}:{self.billing}"
        return f"own:{self.gpu.id}×{self.count}"


@dataclass
class CandidateSet:
    """Candidates to evaluate and the rule ids that removed the others."""

    items: list[Candidate] = field(default_factory=list)
    dropped: dict[str, int] = field(default_factory=dict)

    def drop(self, rule: str) -> None:
        """Count an option removed by `rule`."""
        self.dropped[rule] = self.dropped.get(rule, 0) + 1


def _region_ok(s: Scenario, provider: Provider, offer: Offer) -> bool:
    region = s.region.lower()
    if region in ("any", ""):
        return True
    if region in ("cn", "global"):
        return provider.region_kind == region
    return provider.id == region or any(region in r.lower() for r in offer.regions)


def _own(cat: Catalog, s: Scenario, out: CandidateSet) -> None:
    owned = {o.gpu: o.count for o in s.owns}
    for gpu in cat.gpus:
        if s.domestic_only and gpu.vendor not in DOMESTIC_VENDORS:
            out.drop("domestic-only")
            continue
        for count in COUNTS:
            if count > min(gpu.max_per_host, s.max_gpus):
                break
            out.items.append(Candidate("own", gpu, count, unpriced_card=not gpu.prices))
    for name, count in owned.items():
        gpu = cat.gpu(name)
        out.items.append(Candidate("own", gpu, count, already_owned=True))


def _rent(cat: Catalog, s: Scenario, out: CandidateSet) -> None:
    for offer in cat.offers:
        provider = cat.providers.get(offer.provider)
        if provider is None:
            continue
        if not s.data_may_leave:
            out.drop("data-stays-on-premises")
            continue
        gpu = cat.gpu_by_id(offer.gpu)
        if s.domestic_only and gpu.vendor not in DOMESTIC_VENDORS:
            out.drop("domestic-only")
            continue
        if not _region_ok(s, provider, offer) or offer.gpu_count < 1:
            continue
        if offer.gpu_count > s.max_gpus:
            continue
        for price in offer.prices:
            out.items.append(
                Candidate("rent", gpu, int(offer.gpu_count), offer, provider, price.billing)
            )


def candidates(cat: Catalog, s: Scenario) -> CandidateSet:
    """All own and rent options the scenario allows."""
    out = CandidateSet()
    _own(cat, s, out)
    _rent(cat, s, out)
    return out
