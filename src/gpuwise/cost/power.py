"""What an owned machine draws and what a kWh costs its owner (pure: catalog in, numbers out).

- A card's TDP is the ceiling it may draw, not its average: busy, it draws the workload's share
  of TDP (training 0.75, serving 0.70, sourced in cost.toml); idle, a measured figure where the
  catalog has one, else its class's share (a desktop card parks near 5%, a data-centre card kept
  ready with a model loaded near 15%).
- The host is sized to the host: a desktop draws its measured bench figures whatever card it
  holds; a GPU server's CPUs, switches, NICs and fans grow with its GPUs (Epoch AI's server
  power over chip power for the GPU's architecture), so four V100s never carry a DGX H100's host.
- The facility overhead (PUE) is charged only where the machine sits in a server room or a data
  centre (`site`); at home or under an office desk it is 1.0.
- The tariff is the one its owner pays: a household's residential rate or a business's
  commercial rate, for the region (a company is not a household).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from gpuwise.catalog.catalog import Catalog
from gpuwise.catalog.dating import source_dates
from gpuwise.catalog.schema import Gpu
from gpuwise.catalog.schema_cost import CostAssumption, HostPlatform
from gpuwise.catalog.schema_extra import ColocationRate, Pue, Tariff
from gpuwise.cost.model import Note, PriceRef
from gpuwise.errors import UserError

if TYPE_CHECKING:
    from gpuwise.cost.resolve import Context

Payer = Literal["household", "business"]
DEFAULT_TARIFF = {"CNY": "cn-residential", "USD": "us-residential", "EUR": "eu-residential"}
"""Tariff preset of a household when the region has none: the residential preset of the
currency (the `gpuwise cost` and `record` default)."""
CURRENCY_REGION = {"CNY": "cn", "USD": "us", "EUR": "eu"}
"""The region whose tariffs apply when a scenario names none (or a region without tariffs)."""
DEFAULT_SITE = "office"
"""Where an owned machine is taken to sit when nothing says: no facility overhead."""


def assumption(cat: Catalog, key: str) -> CostAssumption:
    """A cost-model constant by id (a catalog without it is a broken install)."""
    by_id: dict[str, CostAssumption] = cat.derived(
        "cost_assumptions", lambda: {a.id: a for a in reversed(cat.extra("cost_assumption"))}
    )
    if key not in by_id:
        raise UserError("cost.missing_constant", name=key)
    return by_id[key]


def number_or_preset(value: str) -> float | None:
    """`value` as a number, or None when it names a preset."""
    try:
        return float(value)
    except ValueError:
        return None


# ---------------------------------------------------------------- draw


@dataclass(frozen=True)
class Draw:
    """Watts of the cards (each) and of the host, busy and idle."""

    gpu_busy_w: float | None
    gpu_idle_w: float | None
    host_busy_w: float
    host_idle_w: float


def busy_fraction(cat: Catalog, workload: str | None) -> float:
    """The share of TDP a busy card draws for the workload (training when not said)."""
    key = "gpu_serve_draw_fraction_of_tdp" if workload in ("serve", "local") else None
    share = assumption(cat, key or "gpu_train_draw_fraction_of_tdp").value
    return min(share, assumption(cat, "gpu_max_draw_fraction_of_tdp").value)


def card_draw(
    cat: Catalog, gpu: Gpu, fraction: float, notes: list[Note]
) -> tuple[float | None, float | None]:
    """(busy, idle) watts of one card: each device draws its share of TDP while busy, a measured
    idle figure (or its class's share of TDP) while idle; None when the TDP is unknown."""
    if not gpu.tdp_w:
        notes.append(Note.of("cost.note_no_tdp", gpu=gpu.id))
        return None, None
    tdp = gpu.tdp_w * gpu.devices_per_card
    measured = next((x.idle_w for x in cat.extra("gpu_idle_power") if x.gpu == gpu.id), None)
    if measured is not None:
        return tdp * fraction, measured
    key = "gpu_idle_fraction_of_tdp"
    if gpu.gpu_class == "datacenter":
        key = "datacenter_gpu_idle_fraction_of_tdp"
    idle_share = assumption(cat, key).value
    notes.append(Note.of("cost.note_idle_from_tdp", gpu=gpu.id, pct=idle_share))
    return tdp * fraction, tdp * idle_share


def server_ratio(cat: Catalog, gpu: Gpu) -> float:
    """A GPU server's power over its GPUs' TDP for this card's architecture (Epoch AI)."""
    for r in cat.extra("server_power_ratio"):
        if r.architecture == gpu.architecture:
            return float(r.ratio)
    return assumption(cat, "server_power_ratio").value


def host_draw(
    cat: Catalog, platform: HostPlatform, gpu: Gpu, count: int, fraction: float
) -> tuple[float, float]:
    """(busy, idle) watts of the host: a desktop's measured figures, or for a server the share
    of its rated power beyond the GPUs, at the workload's share (never below the fixed part)."""
    fixed = platform.load_w + count * platform.load_w_per_gpu
    if platform.host_draw == "server_ratio" and gpu.tdp_w:
        tdp = gpu.tdp_w * gpu.devices_per_card * count
        return max(fixed, (server_ratio(cat, gpu) - 1) * tdp * fraction), platform.idle_w
    return fixed, platform.idle_w


# ---------------------------------------------------------------- PUE


def site_pue(cat: Catalog, site: str | None, pue: str | None) -> tuple[float, str]:
    """PUE and the site it stands for: the user's PUE (number or preset) wins, else the site's
    preset; a machine with no site said sits in an office (no facility overhead)."""
    if pue is not None:
        return pue_value(cat, pue), "custom"
    key = (site or DEFAULT_SITE).lower()
    sites = cat.extra("site")
    found = next((x for x in sites if x.id == key), None)
    if found is None:
        choices = ", ".join(x.id for x in sites)
        raise UserError("cost.unknown_site", value=site, choices=choices)
    return pue_value(cat, found.pue), found.id


def pue_value(cat: Catalog, value: str) -> float:
    """A PUE given as a number (1.0-3.0) or a preset id."""
    if (num := number_or_preset(value)) is not None:
        if not 1.0 <= num <= 3.0:
            raise UserError("cost.bad_pue", value=value)
        return num
    presets: Sequence[Pue] = cat.extra("pue")
    p = next((x for x in presets if x.id == value.lower()), None)
    if p is None:
        raise UserError("cost.unknown_pue", value=value, choices=", ".join(x.id for x in presets))
    return p.pue


# ---------------------------------------------------------------- tariff


def region_chain(cat: Catalog, region: str | None, currency: str) -> list[str]:
    """Regions whose tariffs may apply, nearest first: the region itself, the catalog regions
    that contain it by code or by name (DE lies in eu, india in asia-pacific), then the
    currency's home region."""
    chain: list[str] = []
    if region:
        key = "-".join(region.lower().split())  # "New York" is the alias new-york
        chain.append(key)
        regions = {r.id: r for r in cat.extra("region")}
        named = [r for r in regions.values() if key in (r.id, *(a.lower() for a in r.aliases))]
        coded = [r for r in regions.values() if any(c.lower() == key for c in r.codes)]
        # the region the name names before those that merely list it as a code: "jp" is
        # Japan's alias and also a code of asia-pacific (blind w57-01: jp paid Asia's average)
        for r in {r.id: r for r in [*named, *coded]}.values():
            country = r.countries.get(key)
            chain += [country.lower()] if country else []  # germany: DE's tariffs first
            chain.append(r.id)
            wider = regions.get(r.within) if r.within else None  # japan lies in asia-pacific
            chain += [wider.id] if wider is not None else []
    chain.append(CURRENCY_REGION.get(currency, "us"))
    return list(dict.fromkeys(chain))


def default_tariff(
    cat: Catalog, currency: str, payer: Payer | None = None, region: str | None = None
) -> str:
    """The tariff preset a payer pays in a region: the one marked default for that region and
    payer, else the household preset of the currency."""
    key = ("default_tariff", currency, payer, region)
    return cat.derived(key, lambda: _default_tariff(cat, currency, payer, region))


def _default_tariff(cat: Catalog, currency: str, payer: Payer | None, region: str | None) -> str:
    presets: Sequence[Tariff] = cat.extra("tariff")
    who = payer or "household"
    for place in region_chain(cat, region, currency):
        for t in presets:
            named = (t.region or "").lower() == place or place in (p.lower() for p in t.places)
            if t.default and t.payer == who and named:
                return t.id
    return DEFAULT_TARIFF[currency]


def tariff_price(
    cat: Catalog,
    ctx: Context,
    value: str | None,
    payer: Payer | None = None,
    region: str | None = None,
) -> tuple[float, PriceRef | None]:
    """Price per kWh in the result currency: a number (the user's), a preset id, or the
    default preset of the payer and region."""
    if value is not None and (num := number_or_preset(value)) is not None:
        if num < 0:
            raise UserError("cost.negative", option="--tariff", value=value)
        return num, None
    key = value or default_tariff(cat, ctx.currency, payer, region)
    presets: Sequence[Tariff] = cat.extra("tariff")
    t = next((x for x in presets if x.id == key.lower()), None)
    if t is None:
        raise UserError("cost.unknown_tariff", value=key, choices=", ".join(x.id for x in presets))
    date = t.date or source_dates(cat, t.source).published
    ref = ctx.ref(f"tariff:{t.id}", t.price_per_kwh, t.currency, "kWh", date, t.source)
    return ctx.money(t.price_per_kwh, t.currency), ref


# ---------------------------------------------------------------- colocation


@dataclass(frozen=True)
class Colocation:
    """A colocation rent for one machine: per month in the result currency, and whether the
    electricity is in it."""

    per_month: float
    power_included: bool
    unpriced: bool = False
    """The machine's peak draw is unknown (no TDP): the rent cannot be sized, and is said."""


def colocation_rent(
    cat: Catalog, ctx: Context, region: str | None, peak_w: float
) -> tuple[Colocation, PriceRef] | None:
    """The monthly rent of a colocation space for a machine that may draw `peak_w`: the
    region's rate per contracted kW (catalog `colocation`, the nearest region first, as for
    tariffs) × its peak kW. None where the catalog has no rate for the region's chain."""
    rates: Sequence[ColocationRate] = cat.extra("colocation")
    for place in region_chain(cat, region, ctx.currency):
        found = next((r for r in rates if r.region.lower() == place), None)
        if found is not None:
            date = found.date or source_dates(cat, found.source).published
            ref = ctx.ref(
                f"colocation:{found.id}", found.per_kw_month, found.currency, "kW-month",
                date, found.source,
            )  # fmt: skip
            rent = ctx.money(found.per_kw_month, found.currency) * peak_w / 1000
            return Colocation(rent, found.power_included), ref
    return None


NO_COLOCATION = Colocation(0.0, False)
"""A machine on its owner's premises: no rent."""
COLOCATION_SITE = "colocation"
"""The owning.toml site of a machine housed in a rented colocation space."""


def colocation_of(
    cat: Catalog,
    ctx: Context,
    site: str,
    region: str | None,
    peak_w: float | None,
    prices: list[PriceRef],
) -> Colocation:
    """The colocation rent of a machine at `site` (none off a colocation site); a region with
    no rate in the catalog is a one-line error naming what to set, never a free rack; a
    machine whose peak draw is unknown (`peak_w` None) has its rent said unpriced."""
    if site != COLOCATION_SITE:
        return NO_COLOCATION
    found = colocation_rent(cat, ctx, region, peak_w or 0.0)
    if found is None:
        raise UserError("cost.no_colocation_rate", region=region or ctx.currency)
    prices.append(found[1])
    if peak_w is None:
        return Colocation(0.0, found[0].power_included, unpriced=True)
    return found[0]
