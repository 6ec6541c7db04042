"""Typed catalog data for owning costs, exchange rates and the vendor × feature matrix."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, Field, NonNegativeFloat, PositiveFloat

from gpuwise.catalog.schema import Sourced
from gpuwise.catalog.schema_stack import StackName

Support = Literal["yes", "partial", "no"]


class Tariff(Sourced):
    """An electricity price preset.

    `region` (a region id of regions.toml, or a country code) and `payer` say whose bill it is:
    a household pays the residential rate, a business the commercial one, so a company's server
    is never priced at a home tariff. The planner takes the preset marked `default` for the
    scenario's region and payer.
    """

    id: str
    name_en: str
    name_zh: str
    price_per_kwh: PositiveFloat
    currency: Literal["USD", "CNY", "EUR"]
    date: dt.date | None = None
    region: str | None = None
    payer: Literal["household", "business"] | None = None
    default: bool = False
    places: list[str] = Field(default_factory=list)
    """Names a scenario may give the tariff's country by (india, 印度): a region written as a
    word finds its country's tariff, not the currency's (blind w22-05: Bengaluru at the US
    household rate)."""


class ColocationRate(Sourced):
    """What a colocation data centre charges to house a customer's own server, per kW of the
    power contracted for it each month (racks are sold by the power they may draw).

    `power_included`: the rate covers the electricity up to the contracted power (common for a
    Chinese IDC rack and much retail colocation); otherwise the energy is billed on top at the
    business tariff and the site's PUE. The planner takes the rate of the scenario's region,
    else of the currency's home region (as for tariffs)."""

    id: str
    region: str
    name_en: str
    name_zh: str
    per_kw_month: PositiveFloat
    currency: Literal["USD", "CNY", "EUR"]
    date: dt.date | None = None
    power_included: bool = False


class Pue(Sourced):
    """Power usage effectiveness preset: facility power ÷ IT power."""

    id: str
    name_en: str
    name_zh: str
    pue: float = Field(ge=1.0, le=3.0)


class HostPart(Sourced):
    """A part of the host a GPU needs, with a dated street price."""

    id: str
    kind: Literal["cpu_board", "ram", "ssd", "psu", "chassis", "cooling", "server_barebone"]
    name: str
    price: PositiveFloat
    currency: Literal["USD", "CNY", "EUR"]
    date: dt.date
    max_gpus: int | None = Field(default=None, ge=1)
    watts: PositiveFloat | None = None
    idle_w: NonNegativeFloat | None = None
    price_bound: Literal["point", "lower", "upper"] = "point"
    """How the price was quoted: a point figure (or a range's midpoint), a floor ('from',
    'over') or a ceiling ('under'). The note says which words of the source it rests on."""


class PsuSizing(Sourced):
    """How big a power supply must be: (base system + GPUs' TDP) × headroom."""

    headroom_factor: float = Field(ge=1.0, le=2.0)
    base_system_w: PositiveFloat
    reference_gpu: str = ""
    gpu_power_w: PositiveFloat | None = None
    required_system_psu_w: PositiveFloat | None = None
    partner_card_psu_w: PositiveFloat | None = None


class ResalePoint(Sourced):
    """A used-market price observed some months after launch, as a fraction of launch price."""

    gpu: str
    date: dt.date
    date_precision: Literal["day", "month", "year"] = "day"
    kind: Literal["observed", "index_estimate"] = "observed"
    months_since_launch: NonNegativeFloat
    fraction_of_launch: PositiveFloat
    launch_price_usd: PositiveFloat | None = None
    used_price_usd: PositiveFloat | None = None
    new_price_usd: PositiveFloat | None = None


class IdlePower(Sourced):
    """Typical idle draw of a GPU."""

    gpu: str
    idle_w: PositiveFloat


class FxRate(Sourced):
    """`rate` units of `currency` per one US dollar on `date`."""

    currency: Literal["CNY", "EUR"]
    rate: PositiveFloat
    date: dt.date
    kind: str = ""
    quote: str = ""


class Maintenance(Sourced):
    """Yearly maintenance allowance as a fraction of the hardware price."""

    annual_fraction: float = Field(ge=0, le=0.5)


class Warranty(Sourced):
    """Years a new purchase is repaired or replaced at no charge: the maker's standard
    warranty, or the law's minimum where that is longer (`region`; "any" for the maker's).
    A part that fails in those years costs downtime, not a new part, so the maintenance
    allowance counts only the months after them (cost.own). A second-hand card has none."""

    applies_to: Literal["system", "datacenter", "workstation", "consumer", "apple"]
    region: str = "any"
    years: float = Field(ge=0, le=10)


class FeatureSupport(Sourced):
    """Whether a software stack runs a framework or feature, with a short reason."""

    stack: StackName
    feature: str
    support: Support
    note_en: str = ""
    note_zh: str = ""


def _extra_kinds() -> dict[str, type[BaseModel]]:
    """Every extra kind by its name in the data files.

    Built on first use rather than on import: the registry imports every schema module (setup
    pins, audit rules, exporter layouts…), each of which builds pydantic classes, while a command
    reading a cached catalog only needs the classes of the parts it unpickles (catalog/lazy.py).
    """
    from gpuwise.catalog.schema_advise import ADVISE_KINDS
    from gpuwise.catalog.schema_audit import AUDIT_KINDS
    from gpuwise.catalog.schema_bench import BENCH_KINDS
    from gpuwise.catalog.schema_compat import COMPAT_KINDS
    from gpuwise.catalog.schema_cost import COST_KINDS
    from gpuwise.catalog.schema_export import EXPORT_KINDS
    from gpuwise.catalog.schema_memory import (
        ActivationModel,
        Engine,
        KvDtype,
        Optimizer,
        Precision,
        WeightFormat,
    )
    from gpuwise.catalog.schema_precision import PRECISION_KINDS
    from gpuwise.catalog.schema_setup import SETUP_KINDS
    from gpuwise.catalog.schema_speed import SPEED_KINDS
    from gpuwise.catalog.schema_supervise import SUPERVISE_KINDS
    from gpuwise.catalog.schema_systems import SYSTEM_KINDS

    kinds: dict[str, type[BaseModel]] = {
        "weight_format": WeightFormat,
        "kv_dtype": KvDtype,
        "optimizer": Optimizer,
        "precision": Precision,
        "engine": Engine,
        "activation_model": ActivationModel,
        "tariff": Tariff,
        "colocation": ColocationRate,
        "pue": Pue,
        "host_part": HostPart,
        "psu_sizing": PsuSizing,
        "resale": ResalePoint,
        "gpu_idle_power": IdlePower,
        "rate": FxRate,
        "maintenance": Maintenance,
        "warranty": Warranty,
        "feature": FeatureSupport,
    }
    for more in (
        SPEED_KINDS,
        ADVISE_KINDS,
        COMPAT_KINDS,
        COST_KINDS,
        PRECISION_KINDS,
        SUPERVISE_KINDS,
        AUDIT_KINDS,
        SETUP_KINDS,
        BENCH_KINDS,
        EXPORT_KINDS,
        SYSTEM_KINDS,
    ):
        kinds.update(more)
    return kinds


_REGISTRY: dict[str, type[BaseModel]] = {}


def __getattr__(name: str) -> dict[str, type[BaseModel]]:
    """`EXTRA_KINDS`, built on first access (see _extra_kinds)."""
    if name != "EXTRA_KINDS":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if not _REGISTRY:
        _REGISTRY.update(_extra_kinds())
    return _REGISTRY
