"""The cost of owning N cards over a horizon.

    total = cards + host + electricity + maintenance - resale

- cards: count x purchase price (street price, else launch price, else the user's value);
- host: the host parts for that many cards (or the user's value), PSU sized from TDP;
- electricity: (busy hours x load power + idle hours x idle power) x PUE x tariff, where
  load power = cards x the workload's draw + the host's draw and idle power likewise
  (cost.power sizes both: TDP is the ceiling, not the average; PUE only in a server room);
- maintenance: yearly allowance x cards' price x the share of hours they work x the years
  after the warranty (the allowance is a failure rate measured at 24/7 full load, and a part
  that fails under warranty is replaced at no charge: blind w22-03 had CNY 614k of a bank's
  three-year budget set aside for an 8-NPU server at 12 h/day that its vendor's warranty
  covered);
- resale: what the cards fetch used at the end (the card's curve from cost.resale, with its
  sourced tail past the last observation, or the user's share), never more than was paid for
  them, so a total is never negative. It is its own negative item, so it is seen.

Hardware the user already owns (`OwnSpec.owned`) is sunk cost: no purchase, no host, no resale
credit — only what this work adds: the electricity of its busy hours (the machine is not assumed
to stay on for it) and the wear it causes, the maintenance allowance in the share of hours the
cards work. What the cards would fetch if sold today is their opportunity value, reported apart
in `details`, never netted into the total.

Everything is in one currency, already converted when the spec was resolved.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gpuwise.cost.model import DAYS_PER_MONTH, CostOption
from gpuwise.cost.resale import fraction_at


@dataclass(frozen=True)
class OwnSpec:
    """Pre-resolved inputs for owning `count` cards (all money in `currency`)."""

    label: str
    gpu_id: str
    count: int
    currency: str
    card_price: float
    host_price: float | None
    gpu_load_w: float | None
    gpu_idle_w: float | None
    host_load_w: float
    host_idle_w: float
    pue: float
    tariff_per_kwh: float
    maintenance_annual_fraction: float
    resale_base_per_card: float
    resale_age_months: float
    resale_curve: tuple[tuple[float, float], ...] = ()
    resale_fraction_override: float | None = None
    resale_tail_annual: float = 0.0
    """Yearly decline of the resale share past the curve's last point (cost.resale)."""
    unpriced_host: tuple[str, ...] = ()
    owned: bool = False
    colocation_per_month: float = 0.0
    """Rent of the colocation space the machine sits in (cost.power.colocation_rent); 0 for a
    machine on the owner's own premises."""
    power_in_rent: bool = False
    """The colocation rent includes the electricity: none is billed on top."""
    colocation_unpriced: bool = False
    """The machine sits in a colocation rack but its peak draw (hence its rent) is unknown."""
    warranty_months: float = 0.0
    """Months from purchase in which failed parts are replaced at no charge (catalog
    `warranty`); none for cards already owned or bought second-hand."""
    bought_used: bool = False
    """The cards are bought second-hand at today's used price: they resell at that price
    carried along the resale curve's shape, not at the curve's share of the launch price (a
    curve built to err low put a used 3090 bought at $800 at 49% of it a year on: blind
    w65-05)."""
    used_value_per_card: float | None = None
    """What one owned card fetches sold today: its newest dated second-hand price, carried to
    today along the resale curve (cost/resolve.used_value_now); None: the curve alone."""
    idle_cards: int = 0
    """Cards in the same powered machine that the job leaves unused: each draws its idle power
    whenever the machine is on."""
    off_when_idle: bool = False
    """The machine is switched off (or asleep) when not in use, as a personal machine for local
    chat is: no idle hours are billed (blind w32-05: a hobbyist's PC billed 21 h a day idle)."""


def psu_watts(base_system_w: float, gpu_tdp_w: float, count: int, headroom: float) -> float:
    """PSU size: (rest of the system + cards x TDP) x headroom (owning.toml psu_sizing)."""
    return (base_system_w + count * gpu_tdp_w) * headroom


def pick_psu(required_w: float, psus: Sequence[tuple[str, float, float]]) -> str | None:
    """The cheapest PSU (id, watts, price) of at least `required_w`; None if none is big enough."""
    fitting = [p for p in psus if p[1] >= required_w]
    return min(fitting, key=lambda p: p[2])[0] if fitting else None


def resale_fraction(
    curve: Sequence[tuple[float, float]], age_months: float, tail_annual: float = 0.0
) -> float:
    """Used price as a share of launch price at `age_months`, piecewise linear.

    The curve starts at (0, 1.0): at launch a card sells for its launch price by definition.
    Past the last observed point the share falls by `tail_annual` a year (0 holds it).
    """
    return fraction_at(curve, age_months, tail_annual)


def _sale_value(spec: OwnSpec) -> float:
    """What owned cards fetch sold today: the used market where it has a price (a market's
    word beats a curve built to err low), else the curve. The maintenance allowance keeps the
    curve's lower value: the allowance is an estimate, and the cards' use is the answer."""
    if spec.used_value_per_card is not None and spec.resale_fraction_override is None:
        return spec.count * spec.used_value_per_card
    return resale_value(spec, 0.0) if resale_known(spec) else 0.0


def resale_known(spec: OwnSpec) -> bool:
    """Whether anything (a curve or the user's share) says what the cards fetch used."""
    return spec.resale_fraction_override is not None or bool(spec.resale_curve)


def resale_value(spec: OwnSpec, months: float) -> float:
    """What the cards fetch used after `months` more of ownership (0 when unknown).

    Capped at what was paid for them: a curve of launch-price fractions applied to a card bought
    below its launch price could otherwise promise a profit, and a total below zero.
    """
    if spec.resale_fraction_override is not None:
        return spec.count * spec.card_price * spec.resale_fraction_override
    if not spec.resale_curve:
        return 0.0
    if spec.bought_used:
        return min(1.0, _used_share(spec, months)) * spec.count * spec.card_price
    share = resale_fraction(
        spec.resale_curve, spec.resale_age_months + months, spec.resale_tail_annual
    )
    return min(spec.count * spec.resale_base_per_card * share, spec.count * spec.card_price)


def _used_share(spec: OwnSpec, months: float) -> float:
    """What a card bought used today keeps of its price after `months`: the curve's share
    then over its share now (the market priced it at today's age)."""
    now = resale_fraction(spec.resale_curve, spec.resale_age_months, spec.resale_tail_annual)
    later = resale_fraction(
        spec.resale_curve, spec.resale_age_months + months, spec.resale_tail_annual
    )
    return later / now if now > 0 else 0.0


def _resale_details(spec: OwnSpec, months: float) -> dict[str, float]:
    """The share of launch price the resale credit assumes and the age it is read at, so the
    credit is shown with what it rests on (the notes name the curve's data and sources)."""
    age = spec.resale_age_months + months
    if spec.resale_fraction_override is not None:
        return {"resale_pct": 100 * spec.resale_fraction_override, "resale_age_months": age}
    if spec.bought_used:
        share = min(1.0, _used_share(spec, months))
        return {"resale_pct_of_paid": 100 * share, "resale_age_months": age}
    share = resale_fraction(spec.resale_curve, age, spec.resale_tail_annual)
    return {"resale_pct": 100 * share, "resale_age_months": age}


def energy_kwh(spec: OwnSpec, busy_hours: float, idle_hours: float) -> float | None:
    """Energy drawn from the wall over the given hours (PUE not applied); None if unknown."""
    if spec.gpu_load_w is None or spec.gpu_idle_w is None:
        return None
    unused_w = spec.idle_cards * spec.gpu_idle_w  # in the box, powered, doing nothing
    load_w = spec.count * spec.gpu_load_w + spec.host_load_w + unused_w
    idle_w = spec.count * spec.gpu_idle_w + spec.host_idle_w + unused_w
    return (busy_hours * load_w + idle_hours * idle_w) / 1000


def own_cost(
    spec: OwnSpec,
    busy_hours_per_month: float,
    months: float,
    idle_hours_per_month: float | None = None,
) -> CostOption:
    """Itemised cost of owning over `months`; the machine idles when not busy unless told.

    `idle_hours_per_month` defaults to the rest of the month (the box stays on); give 0 for a
    machine switched off when not in use.
    """
    all_hours = 24 * DAYS_PER_MONTH
    if idle_hours_per_month is None:
        stays_on = not (spec.owned or spec.off_when_idle)
        idle_hours_per_month = max(0.0, all_hours - busy_hours_per_month) if stays_on else 0.0
    cards = spec.count * spec.card_price
    items: dict[str, float] = {}
    unpriced = [] if spec.owned else list(spec.unpriced_host)
    if not spec.owned:
        items["cards"] = cards
        if spec.host_price is None:
            unpriced.insert(0, "host")
        else:
            items["host"] = spec.host_price
    kwh = energy_kwh(spec, busy_hours_per_month * months, idle_hours_per_month * months)
    if spec.colocation_per_month:
        items["colocation"] = spec.colocation_per_month * months
    if spec.colocation_unpriced:
        unpriced.append("colocation")
    if kwh is None and not spec.power_in_rent:
        unpriced.append("electricity")
    elif kwh is not None and not spec.power_in_rent:
        items["electricity"] = kwh * spec.pue * spec.tariff_per_kwh
    # an allowance on what the hardware is worth: its price, or for owned cards their used value
    # in the share of hours this work uses them
    worth = resale_value(spec, 0.0) if spec.owned and resale_known(spec) else cards
    share = min(1.0, busy_hours_per_month / all_hours)
    paid_months = max(0.0, months - spec.warranty_months)
    items["maintenance"] = worth * spec.maintenance_annual_fraction * share * paid_months / 12
    details = {
        "busy_hours": busy_hours_per_month * months,
        "idle_hours": idle_hours_per_month * months,
    }
    if kwh is not None:
        details["energy_kwh"] = kwh * spec.pue
    if spec.owned:
        value = _sale_value(spec)
        if value > 0:  # a card with no price has no known used value
            details["opportunity_value"] = value
    elif resale_known(spec):
        items["resale"] = -resale_value(spec, months)
        details.update(_resale_details(spec, months))
    return CostOption(
        label=spec.label,
        kind="own",
        currency=spec.currency,
        months=months,
        items=items,
        unpriced=tuple(unpriced),
        details=details,
    )
