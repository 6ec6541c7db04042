"""Typed cloud catalog: providers, their hidden-cost rates and GPU offers by billing mode."""

from __future__ import annotations

import datetime as dt
from typing import Literal, get_args

from pydantic import Field, NonNegativeFloat, PositiveFloat, PositiveInt, model_validator

from gpuwise.catalog.schema import Currency, Sourced, Strict

Billing = Literal[
    "on-demand",
    "spot",
    "monthly",
    "yearly",
    "reserved-1y",
    "reserved-3y",
    "savings-plan-1y",
    "savings-plan-3y",
]
BILLINGS: tuple[Billing, ...] = get_args(Billing)
HOURS_PER_MONTH = 730.0
"""Hours in an average month (8,760 h / 12), the convention AWS, GCP and Azure bill monthly by."""

_HOURS_PER = {"hour": 1.0, "month": HOURS_PER_MONTH, "year": HOURS_PER_MONTH * 12}


class Provider(Sourced):
    """A cloud or rental market."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    name_en: str
    name_zh: str
    aliases: list[str] = Field(default_factory=list)
    """Other names users type for it (huaweicloud, 华为, Volcano Engine …): `offers add`,
    `offers --provider`, `cost --vs` resolve them exactly (catalog/providers.py)."""
    region_kind: Literal["cn", "global"]
    currency: Currency
    spot_notice_s: int | None = Field(default=None, ge=0)
    spot_interruption_rate: str = ""
    spot_interruptions_per_day: NonNegativeFloat | None = None
    price_region: str | None = None
    website: str = ""
    regions: list[str] = Field(default_factory=list)
    """Regions the provider sells GPU instances in, as its console names them (for providers
    whose offers the catalog cannot list)."""
    billing_modes: list[Billing] = Field(default_factory=list)
    """Billing modes its GPU instances are sold in (按量 on-demand, 抢占式 spot, 包年包月
    monthly/yearly, …), from its own billing docs."""
    regions_unconfirmed: bool = False
    """True where the catalog's source lists every instance type in every region of the
    provider (Lambda's SkyPilot rows), so an offer's region list does not say it is sold
    there: a plan for a named region says to check it (advise/regions.py)."""
    commitment_max_discount: float | None = Field(default=None, ge=0, lt=1)
    """The largest discount the provider publishes for a term commitment (Nebius: "commitment
    discounts (up to 35% less)"), as a share of the on-demand price; None where none is
    published. The commitment's own price is a quote (advise/commitment_note.py)."""
    public_prices: bool = True
    """False: the provider shows GPU prices only after log-in (console) or on request, so the
    catalog's offers (if any) are partial; `gpuwise offers add` records the user's quotes."""
    domestic_accelerators: list[str] = Field(default_factory=list)
    """Chinese-made accelerators the provider rents (Ascend NPUs on Huawei Cloud ModelArts),
    as its own docs name them, whether or not the catalog has a price for them: a 国产化 plan
    names these clouds when none of their rentals is priced."""
    domestic_source: str | None = None
    """The source id that says which domestic accelerators it rents."""
    rdma_clusters: list[str] = Field(default_factory=list)
    """GPU or NPU clusters the provider rents with an RDMA network between machines
    (InfiniBand, RoCE), as its docs name them, whether or not the catalog has a price: a
    training plan that spans machines on an assumed Ethernet names these clouds."""
    rdma_source: str | None = None
    """The source id that says which RDMA clusters it rents."""

    hosting: Literal["datacenter", "marketplace"] = "datacenter"
    """datacenter: the provider runs (or rents) the machines in its own facilities under one
    service agreement. marketplace: peer-to-peer hosts, from one person's gaming PC to a
    data centre, list their own machines (Vast.ai's community cloud); a host may go offline
    with no SLA, so a 24/7 service there carries a priced reliability risk."""
    public_endpoint: Literal["public-ip", "platform-proxy"] = "public-ip"
    """How an instance takes requests from the internet: its own public address (a cloud VM),
    or only a port the platform maps or proxies on a shared address (a per-card container
    platform's development link, no address of its own, no SLA): a public API is ranked after
    rentals with an address of their own where the only way in is the platform's proxy."""
    hipaa_baa: bool | None = None
    """True: the provider signs a HIPAA Business Associate Agreement that covers its GPU
    instances (sourced); None: the catalog found no such statement."""
    restart_bound_to_host: bool | None = None
    """True: a stopped instance stays bound to its host and gives that host's GPU back to other
    renters; it starts again only when a card there is free (a per-card container platform), so
    a service stopped each night may find none in the morning. False: a start may land on any
    host with capacity (a cloud VM). None: the catalog has no source either way."""
    stop_is_terminate: bool | None = None
    """True: the platform has no stop: an instance ends only by being terminated (its local
    disk with it), so a service run part of each day is relaunched every morning from the
    pool, where a free GPU is not promised (sourced). None: the catalog has no source."""
    availability: float | None = Field(default=None, gt=0, le=1)
    """The share of hours the provider publishes its hosts as available, where it does."""

    def source_ids(self) -> list[str]:
        """Every source this entry uses, the domestic-accelerator one included."""
        ids = super().source_ids()
        return [*ids, *(s for s in (self.domestic_source, self.rdma_source) if s)]


class HiddenCosts(Sourced):
    """Per-unit rates of what a GPU bill hides: disks, buckets, egress, snapshots, IPs, NAT.

    None means "not published / not found": the bill then says the item is unpriced instead of
    silently counting it as free.
    """

    provider: str = ""
    block_storage_per_gb_month: NonNegativeFloat | None = None
    object_storage_per_gb_month: NonNegativeFloat | None = None
    object_storage_per_10k_requests: NonNegativeFloat | None = None
    egress_per_gb: NonNegativeFloat | None = None
    egress_free_gb_per_month: NonNegativeFloat = 0.0
    snapshot_per_gb_month: NonNegativeFloat | None = None
    public_ip_per_hour: NonNegativeFloat | None = None
    nat_gateway_per_hour: NonNegativeFloat | None = None
    nat_gateway_per_gb: NonNegativeFloat | None = None


class OfferPrice(Strict):
    """One billing mode's price for the whole instance."""

    billing: Billing
    amount: PositiveFloat
    per: Literal["hour", "month", "year"] = "hour"
    note: str = ""
    source: str | None = None
    published: dt.date | None = None
    """The date this price was stated, when it differs from its source's (a feed row's
    effective date, a quote's date)."""
    currency: Currency | None = None
    """The currency the amount is in when it is not its provider's: a user's quote is kept in
    the currency it was given in ($8 for a CNY provider stays 8 USD) and converted with the
    dated rate where it is compared or shown. None: the provider's currency."""

    @property
    def per_hour(self) -> float:
        """The price spread over every hour of the period (monthly = 730 h)."""
        return self.amount / _HOURS_PER[self.per]

    def currency_of(self, provider: Provider) -> str:
        """The currency of `amount`: its own, else its provider's."""
        return self.currency or provider.currency


class Offer(Sourced):
    """An instance type (or a per-card rental) with its prices."""

    provider: str = ""
    instance: str
    gpu: str
    gpu_count: PositiveFloat
    vcpu: PositiveFloat | None = None
    ram_gb: PositiveFloat | None = None
    local_disk_gb: NonNegativeFloat = 0.0
    regions: list[str] = Field(default_factory=list)
    price_region: str | None = None
    node_gpus: PositiveInt | None = None
    network_gbps: PositiveFloat | None = None
    """The instance's scale-out network to other instances (Gb/s, all its NICs): what a job
    across machines talks over. None: not published (the planner assumes plain Ethernet)."""
    machine_unconfirmed: bool = False
    """The sources price one GPU but do not say what machine it is rented in: it may be let
    only as a whole multi-GPU node (a per-GPU rate of an 8-GPU HGX server), so a plan on one
    of them says so (risk `machine_unconfirmed`; blind w49-03)."""
    published: dt.date | None = None
    """The date the offer's prices were stated, when it differs from the source's."""
    origin: Literal["catalog", "feed", "user"] = "catalog"
    """Where the offer was read: the built-in data, a refreshed price feed in the user cache,
    or the user's own override file (a quote); set by the loader from the file's folder."""
    prices: list[OfferPrice]

    @model_validator(mode="after")
    def _node_holds_instance(self) -> Offer:
        if self.node_gpus is not None and self.node_gpus < self.gpu_count:
            raise ValueError("validate.node_smaller_than_offer")
        return self

    @model_validator(mode="after")
    def _spot_below_on_demand(self) -> Offer:
        by_mode = {p.billing: p.per_hour for p in self.prices}
        same_currency = len({p.currency for p in self.prices}) == 1  # else compared once converted
        spot, on_demand = by_mode.get("spot"), by_mode.get("on-demand")
        if same_currency and spot is not None and on_demand is not None and spot >= on_demand:
            raise ValueError("validate.spot_not_cheaper")
        if len(by_mode) != len(self.prices):
            raise ValueError("validate.billing_twice")
        return self

    def price(self, billing: str) -> OfferPrice | None:
        """The price for one billing mode, if the offer has it."""
        return next((p for p in self.prices if p.billing == billing), None)

    def source_ids(self) -> list[str]:
        """Default, per-number and per-price sources."""
        extra = [p.source for p in self.prices if p.source]
        return list(dict.fromkeys([*super().source_ids(), *extra]))
