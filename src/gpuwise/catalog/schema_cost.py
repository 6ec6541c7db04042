"""Typed cost data beyond cloud offers (registered through COST_KINDS into EXTRA_KINDS).

- `host_platform`: what a host for N cards is built from (desktop, workstation, PCIe server,
  HGX/OAM server), which host parts it uses, how many cards and which card coolings it takes,
  and what the host draws.
- `site`: where an owned machine sits (home, office, server room, data centre) and the PUE
  preset that place implies.
- `server_power_ratio`: a GPU server's power over its GPUs' TDP, per GPU architecture.
- `rental_session`: the minutes a rental session spends before useful work (boot, image or
  environment pull) for one kind of provider (hyperscaler VM, GPU-cloud VM, container pod),
  and which providers are of that kind.
- `engineer_wage`: what a year of a software engineer's time costs in a region, the price of
  the porting work a partly supported stack needs (advise/porting.py).
- `cost_assumption`: a named constant of the cost model (idle draw as a share of TDP, default
  spot interruption rate, restart time, …), each with a source and a `basis` that says whether
  it was measured, published, derived by arithmetic, or is an explicit assumption.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, NonNegativeFloat, PositiveFloat, PositiveInt

from gpuwise.catalog.schema import Sourced

Cooling = Literal["active", "passive", "liquid"]
PartKind = Literal["cpu_board", "ram", "ssd", "psu", "chassis", "cooling", "server_barebone"]


class HostPlatform(Sourced):
    """A kind of host for GPUs and the parts it is priced from.

    The number of cards it takes is the smallest of `max_gpus` and the `max_gpus` of its parts
    (CPU lanes, board slots, chassis bays). The PSU is not listed in `parts`: it is chosen by
    watts from the catalog's PSUs (see cost.own). `needs` names every kind of part a working
    host must have; a kind with no priced part shows as "unpriced", never as free.
    """

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    name_en: str
    name_zh: str
    max_gpus: PositiveInt
    form_factors: list[str] = Field(default_factory=lambda: ["pcie"])
    coolings: list[Cooling] = Field(default_factory=lambda: list[Cooling](["active"]))
    """Card coolings (Gpu.cooling) the host can run: a desktop or workstation case has no
    forced airflow for passive cards; a server takes all three."""
    parts: list[str] = Field(default_factory=list)
    needs: list[PartKind] = Field(default_factory=list)
    idle_w: NonNegativeFloat
    load_w: PositiveFloat
    load_w_per_gpu: NonNegativeFloat = 0.0
    """Host draw that grows with the cards fitted: the host draws load_w + cards x
    load_w_per_gpu while busy (host_draw = "fixed"). 0 on desktops."""
    host_draw: Literal["fixed", "server_ratio"] = "fixed"
    """How the host's busy draw is sized. fixed: load_w + cards x load_w_per_gpu (a desktop
    draws the same whatever card it holds). server_ratio: a GPU server's CPUs, switches, NICs
    and fans grow with its GPUs, so the host draws (server_power_ratio of the GPU's
    architecture - 1) x the GPUs' draw, never less than load_w."""
    pue: str = "home"
    """The PUE preset of the place such a host usually needs (a server: a server room or data
    centre). Informational: the PUE charged comes from the scenario's `site`; a server sited at
    home or in an office is flagged as a risk instead."""
    max_gpu_memory_gb: PositiveFloat | None = None
    """Most GPU memory (all cards together, GB) the host's system RAM is sized for, from the
    rule that system RAM should be at least twice the VRAM (source on the value). The planner
    skips a platform below the build's VRAM; None: no limit (the RAM grows with the build)."""


class CostAssumption(Sourced):
    """One constant of the cost model, with its unit and how it was obtained."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_]*$")
    value: float
    unit: str
    basis: Literal["measured", "published", "derived", "assumption"]


class EngineerWage(Sourced):
    """The published annual wage of software engineers in a region: what the weeks of porting
    a partly supported stack takes cost a team there (advise/porting.py). A wage, not a loaded
    cost (office, tax, overhead left out): the porting work is priced low, never high."""

    region: str
    currency: Literal["USD", "CNY", "EUR"]
    annual: PositiveFloat
    basis: Literal["measured", "published", "derived", "assumption"]


class Site(Sourced):
    """Where an owned machine sits, and the PUE preset (owning.toml) that place implies.

    Only a server room or a data centre adds facility overhead (cooling, UPS); a machine at
    home or under an office desk is charged its own draw (PUE 1.0).
    """

    id: str = Field(pattern=r"^[a-z][a-z-]*$")
    pue: str
    """A PUE preset id (owning.toml `pue`). Shown to users by the message `site.<id>`."""


class ServerPowerRatio(Sourced):
    """A GPU server's rated power over its GPUs' TDP, for one GPU architecture."""

    architecture: str
    ratio: float = Field(ge=1.0, le=4.0)


SessionKind = Literal["hyperscaler-vm", "gpu-cloud-vm", "container"]


class RentalSession(Sourced):
    """What one rental session costs in time before the job's first step, by kind of provider.

    Every session of a rented run (each run billed by the hour, each spot restart) pays it at
    the instance's rate: a 6-minute LoRA run on a VM that takes ten minutes to boot is mostly
    boot. `start_min` is the boot or pod start; `image_gb` is the environment (a CUDA container
    image) a VM pulls after booting (a container pod's image pull is in its `start_min`).
    """

    kind: SessionKind
    providers: list[str]
    start_min: NonNegativeFloat
    image_gb: NonNegativeFloat = 0.0
    quota_request: bool = False
    """GPU VMs of this kind need a per-family quota the account must request first (on-demand
    and spot apart); a new individual account may have little or none."""
    basis: Literal["measured", "published", "derived", "assumption"]


COST_KINDS: dict[str, type[BaseModel]] = {
    "rental_session": RentalSession,
    "host_platform": HostPlatform,
    "cost_assumption": CostAssumption,
    "engineer_wage": EngineerWage,
    "site": Site,
    "server_power_ratio": ServerPowerRatio,
}
