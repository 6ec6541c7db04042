"""What hardware costs in the buyer's country, where the catalog prices it only abroad.

The catalog's card, host and server prices are quoted in three markets: China (CNY), the US
(USD, before sales tax) and the euro area (EUR). A buyer in a country with no price of its own
pays the importer's price: the world price plus duties and taxes, which a country's index
(`region.hardware_price_index`, a reference card's local price over its US price at the day's
exchange rate) carries. Countries whose index is near 1 (their market prices as the US's) set
none; the plan's note names the index and its source (cost.note_hardware_index).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gpuwise.catalog.catalog import Catalog
from gpuwise.cost.model import Note
from gpuwise.cost.power import region_chain
from gpuwise.cost.resolve_host import Host


@dataclass(frozen=True)
class HardwareIndex:
    """A country's hardware price index and where it comes from."""

    factor: float
    region_id: str
    name_en: str
    name_zh: str
    source: str


def hardware_index(cat: Catalog, region: str | None, currency: str) -> HardwareIndex | None:
    """The index of the nearest region on the buyer's chain that sets one (None: world
    prices apply as quoted)."""
    if not region:
        return None
    regions = {r.id: r for r in cat.extra("region")}
    for key in region_chain(cat, region, currency):
        r = regions.get(key)
        if r is not None and r.hardware_price_index:
            source = r.field_sources.get("hardware_price_index", r.source)
            return HardwareIndex(r.hardware_price_index, r.id, r.name_en, r.name_zh, source)
    return None


def imported_host(host: Host, index: HardwareIndex, user_priced: bool) -> Host:
    """The host's parts bought in the buyer's country: the world price times its index (a
    price the user gave for the host is theirs, as is)."""
    if host.price is None or user_priced:
        return host
    return replace(host, price=host.price * index.factor)


def index_note(index: HardwareIndex) -> Note:
    """The plan says the hardware was priced at world prices times the country's index."""
    return Note.of(
        "cost.note_hardware_index",
        factor=index.factor,
        region_en=index.name_en,
        region_zh=index.name_zh,
        source=index.source,
    )
