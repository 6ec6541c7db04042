"""Typed catalog data for what can really be bought and what can really train.

- `system`: a purchasable server or workstation SKU — which card (catalog GPU id), how many,
  the CPU, memory and network it ships with, dated list or street prices, its power and the
  markets it is sold in. SXM, OAM and module parts are sold only this way (on 4- or 8-GPU
  baseboards inside a server), never as single cards.
- `training_support`: whether a card can train with a framework at all (inference-only parts
  such as the Ascend 310P or AWS Inferentia2 cannot), with the vendor's page that says so.

Registered into the catalog through SYSTEM_KINDS (see schema_extra.EXTRA_KINDS).
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, Field, PositiveFloat, PositiveInt

from gpuwise.catalog.schema import Currency, Sourced, Strict

Market = Literal["cn", "global"]
"""Where a system is sold or a price was quoted: mainland China, or the rest of the world."""


class SystemPrice(Strict):
    """A dated price of a whole system (host, CPUs, memory and network included).

    `kind`: list = the vendor's list price; street = a reseller quote or a press report of what
    buyers pay. `market` says which buyers the price is for (a China channel price is not what a
    US buyer pays); None when the source does not say."""

    kind: Literal["list", "street"]
    amount: PositiveFloat
    currency: Currency
    date: dt.date | None = None
    source: str
    market: Market | None = None
    note: str = ""


class PurchasableSystem(Sourced):
    """One server or workstation SKU that is bought whole."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    name: str
    maker: str
    form: Literal["server", "workstation"]
    gpu: str
    """The catalog GPU id of the cards (modules) it carries."""
    gpus: PositiveInt
    """Cards (SXM/OAM modules or PCIe cards) in one system."""
    cpu: str = ""
    ram_gb: PositiveFloat | None = None
    network: str = ""
    """The scale-out network it ships with, as the source states it (e.g. 8 x 400 Gb/s IB)."""
    network_gbps_per_gpu: PositiveFloat | None = None
    max_power_w: PositiveFloat | None = None
    typical_power_w: PositiveFloat | None = None
    regions: list[Market] = Field(default_factory=list)
    """Markets it is sold in; empty = not restricted by the vendor (export rules on the GPU
    still apply)."""
    aliases: list[str] = Field(default_factory=list)
    prices: list[SystemPrice] = Field(default_factory=list)

    def source_ids(self) -> list[str]:
        """Default, per-number and per-price sources."""
        return list(dict.fromkeys([*super().source_ids(), *(p.source for p in self.prices)]))


class TrainingSupport(Sourced):
    """Whether `gpu` can train with `framework` ("any": with every framework)."""

    gpu: str
    framework: str = "any"
    support: Literal["yes", "partial", "no"]
    note_en: str = ""
    note_zh: str = ""


SYSTEM_KINDS: dict[str, type[BaseModel]] = {
    "system": PurchasableSystem,
    "training_support": TrainingSupport,
}
