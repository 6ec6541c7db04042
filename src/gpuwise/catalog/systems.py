"""Look-ups over purchasable systems and training capability (pure: the catalog comes in).

Why a unit of purchase matters: an SXM, OAM or module part cannot be bought on its own — it
comes on a 4- or 8-GPU baseboard inside a server whose price includes the CPUs, memory and
network. A plan that "buys 2 x H200" prices something no one sells. These helpers say which
parts are sold only that way, which systems carry a part, where they are sold, which of their
prices apply to a buyer, and which cards cannot train at all.
"""

from __future__ import annotations

from collections.abc import Sequence

from gpuwise.catalog.catalog import Catalog
from gpuwise.catalog.names import normalize
from gpuwise.catalog.schema import Gpu
from gpuwise.catalog.schema_systems import Market, PurchasableSystem, SystemPrice, TrainingSupport

SYSTEM_ONLY_FORMS = ("sxm", "oam", "module")
"""Form factors sold only on a baseboard inside a server, never as a card for a host."""


def sold_as_system(gpu: Gpu) -> bool:
    """Whether the part can be bought only inside a whole system (SXM, OAM, module)."""
    return gpu.form_factor in SYSTEM_ONLY_FORMS and not gpu.whole_system


def market_of(buyer: str | None) -> Market:
    """The market whose systems and prices apply: mainland China, or everywhere else."""
    return "cn" if buyer == "cn" else "global"


def sold_in(item: PurchasableSystem | Gpu, market: Market) -> bool:
    """Whether the system or card is sold in the market (no regions listed: everywhere)."""
    return not item.regions or market in item.regions


def systems_for(cat: Catalog, gpu_id: str) -> list[PurchasableSystem]:
    """Every system that carries this part, smallest first."""
    found = [s for s in cat.extra("system") if s.gpu == gpu_id]
    return sorted(found, key=lambda s: (s.gpus, s.id))


def find_system(cat: Catalog, name: str) -> PurchasableSystem | None:
    """A system by id or alias (case, spaces and dashes ignored); None when none matches."""
    key = normalize(name)
    for s in cat.extra("system"):
        if key in (normalize(n) for n in (s.id, s.name, *s.aliases)):
            return s  # type: ignore[no-any-return]
    return None


def market_prices(system: PurchasableSystem, market: Market) -> list[SystemPrice]:
    """The prices quoted for buyers in `market` (or for no stated market).

    A China channel price is not what a buyer elsewhere pays, nor the reverse: a system with no
    price for the buyer's market is unpriced for that buyer, never priced from another market.
    """
    return [p for p in system.prices if p.market in (market, None)]


def training_refusal(
    cat: Catalog, gpu_id: str, frameworks: Sequence[str]
) -> TrainingSupport | None:
    """The catalog row that says this card cannot train with one of `frameworks` (or with any
    framework at all), else None."""
    wanted = {"any", *frameworks}
    for row in cat.extra("training_support"):
        if row.gpu == gpu_id and row.framework in wanted and row.support == "no":
            return row  # type: ignore[no-any-return]
    return None
