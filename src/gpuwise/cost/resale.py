"""What a card fetches used, as a share of its launch price, by age: one curve per card.

Why a curve from data, built conservatively: a purchase over N months is only fairly compared
with renting when what the cards sell for at the end is credited, yet an optimistic credit is
the quickest way to a wrong "buy". So the curve is built to err low:

1. Observations: the sourced [[resale]] points (owning.toml) plus every dated second-hand price
   in the card catalog (a `used` price, or a `street` price whose condition is `used`) divided by
   the card's dated launch price in the same currency; age = months from launch to the price.
   Shares above 1 (launch scarcity, the 2021 shortage) are market premiums, not depreciation,
   and are left out.
2. Fallbacks: the card's own observations; else those of cards of the same vendor and class;
   else of the same class; else of all cards. The level used is stated (`basis`).
3. Same-age observations (rounded to the month) are averaged; the curve starts at (0, 1.0) and
   is forced monotone non-increasing by a running minimum, so a later, higher observation never
   lifts the curve (a used card does not appreciate in this model).
4. Haircuts: a curve resting on fewer observations than the catalog's `resale_min_points` is
   capped, month by month, by the next wider level that has enough (the lower of the two), so a
   single generous sale (a workstation card at 80% after three years) is never the whole story;
   and a card whose whole class has fewer than that is capped by the worst-reselling class that
   has enough, rather than lifted by the average of everything else.
5. Tail: past the last observation the share falls at the catalog's sourced yearly rate,
   f(t) = f_last × (1 - rate)^((t - t_last) / 12), never held flat for ever.

Pure: catalog in, curve out (memoised per card on the catalog object).
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gpuwise.catalog.catalog import Catalog
from gpuwise.catalog.schema import Gpu
from gpuwise.catalog.schema_extra import ResalePoint
from gpuwise.cost.model import DAYS_PER_MONTH
from gpuwise.cost.power import assumption

Knots = tuple[tuple[float, float], ...]
BASES = ("card", "vendor_class", "class", "all")
"""Fallback levels, narrowest first."""


@dataclass(frozen=True)
class Observation:
    """One used price as a share of launch price, `months` after launch."""

    gpu: str
    months: float
    fraction: float
    source: str


@dataclass(frozen=True)
class ResaleCurve:
    """A card's resale share by age, with what it rests on (for the notes and the report)."""

    knots: Knots
    """(age in months, share of launch price), ages > 0, shares non-increasing; (0, 1) implied."""
    tail_annual_decline: float
    basis: str
    """Which fallback level the observations came from: one of BASES."""
    cards: tuple[str, ...]
    points: int
    """How many observations the level had (before same-age averaging)."""
    sources: tuple[str, ...]
    haircut: str | None = None
    """The wider level (or "worst_class") that capped a thin curve; None when it stood alone."""

    def at(self, age_months: float) -> float:
        """The share at `age_months` (see fraction_at)."""
        return fraction_at(self.knots, age_months, self.tail_annual_decline)


def fraction_at(knots: Sequence[tuple[float, float]], age_months: float, tail: float) -> float:
    """Share of launch price at `age_months`: piecewise linear from (0, 1.0) through the knots,
    then the yearly tail decline past the last knot (tail 0 holds the last share).

    The knots are sorted by age (monotone_knots and lower_envelope build them so). The plan asks
    this thousands of times a search, over curves sampled every month, so the segment is found
    by bisection rather than by walking the curve."""
    last_m, last_f = knots[-1] if knots else (0.0, 1.0)
    if age_months >= last_m:
        return float(last_f * (1.0 - tail) ** ((age_months - last_m) / 12.0))
    i = bisect.bisect_left(knots, age_months, key=_age)
    m1, f1 = knots[i]
    m0, f0 = knots[i - 1] if i else (0.0, 1.0)
    if age_months < m0:  # a negative age: before launch
        return 1.0
    return f0 if m1 == m0 else f0 + (f1 - f0) * (age_months - m0) / (m1 - m0)


def _age(knot: tuple[float, float]) -> float:
    return knot[0]


def monotone_knots(observations: Sequence[Observation]) -> Knots:
    """Same-month observations averaged, then a running minimum from (0, 1.0)."""
    by_month: dict[int, list[float]] = {}
    for o in observations:
        by_month.setdefault(round(o.months), []).append(o.fraction)
    knots: list[tuple[float, float]] = []
    floor = 1.0
    for month in sorted(by_month):
        shares = by_month[month]
        floor = min(floor, sum(shares) / len(shares))
        if month > 0:
            knots.append((float(month), floor))
    return tuple(knots)


def lower_envelope(a: Knots, b: Knots, tail: float) -> Knots:
    """Month by month the lower of two curves (both with the same tail).

    Sampled on every whole month up to the later last knot and at every knot: interpolating
    between sampled minima never exceeds the true minimum of two linear pieces (a minimum of
    lines is concave), so the envelope errs low.
    """
    end = max(a[-1][0] if a else 0.0, b[-1][0] if b else 0.0)
    ages = sorted({*(m for m, _ in a), *(m for m, _ in b), *map(float, range(1, int(end) + 1))})
    knots: list[tuple[float, float]] = []
    floor = 1.0  # a running minimum: rounding between two tails never lifts the curve
    for m in (m for m in ages if m > 0):
        floor = min(floor, fraction_at(a, m, tail), fraction_at(b, m, tail))
        knots.append((m, floor))
    return tuple(knots)


def _months(start: dt.date, end: dt.date) -> float:
    return (end - start).days / DAYS_PER_MONTH


def catalog_observations(gpu: Gpu) -> list[Observation]:
    """Second-hand prices in the card's own price list ÷ its launch price (same currency)."""
    launches = [p for p in gpu.prices if p.kind == "launch" and p.date and not p.includes_host]
    used = [
        p
        for p in gpu.prices
        if p.date
        and not p.includes_host
        and (p.kind == "used" or (p.kind == "street" and p.condition == "used"))
    ]
    out = []
    for p in used:
        launch = next((lp for lp in launches if lp.currency == p.currency), None)
        if launch is None or launch.date is None or p.date is None or p.date < launch.date:
            continue
        months = _months(launch.date, p.date)
        out.append(Observation(gpu.id, months, p.amount / launch.amount, p.source))
    return out


def all_observations(cat: Catalog) -> tuple[Observation, ...]:
    """Every observation below or at 1.0 of launch price, from owning.toml and the card list."""

    def build() -> tuple[Observation, ...]:
        points: Sequence[ResalePoint] = cat.extra("resale")
        obs = [
            Observation(r.gpu, r.months_since_launch, r.fraction_of_launch, r.source)
            for r in points
        ]
        for g in cat.gpus:
            obs += catalog_observations(g)
        return tuple(o for o in obs if o.fraction <= 1.0)

    return cat.derived("resale_observations", build)


def _levels(gpu: Gpu) -> list[tuple[str, tuple[object, ...], Callable[[Gpu], bool]]]:
    """The fallback levels of a card, each with the key its observations are shared under."""
    vendor_class = (gpu.vendor, gpu.gpu_class)
    return [
        ("card", ("card", gpu.id), lambda g: g.id == gpu.id),
        (
            "vendor_class",
            ("vendor_class", *vendor_class),
            lambda g: (g.vendor, g.gpu_class) == vendor_class,
        ),
        ("class", ("class", gpu.gpu_class), lambda g: g.gpu_class == gpu.gpu_class),
        ("all", ("all",), lambda g: True),
    ]


def _pick(cat: Catalog, key: tuple[object, ...], test: Callable[[Gpu], bool]) -> list[Observation]:
    """A level's observations, gathered once per catalog (every card of a class shares them)."""

    def build() -> list[Observation]:
        by_id = {g.id: g for g in cat.gpus}
        return [o for o in all_observations(cat) if o.gpu in by_id and test(by_id[o.gpu])]

    return cat.derived(("resale_level", *key), build)


def _knots(cat: Catalog, key: tuple[object, ...], obs: Sequence[Observation]) -> Knots:
    """A level's monotone knots, once per catalog."""
    return cat.derived(("resale_knots", *key), lambda: monotone_knots(obs))


def _class_is(cls: str) -> Callable[[Gpu], bool]:
    return lambda g: g.gpu_class == cls


def _worst_class(cat: Catalog, gpu: Gpu, min_points: float, tail: float) -> Knots:
    """Month by month the lowest curve among the classes with enough data of their own.

    Why: a card of a class nobody has resale data for (a workstation card, a new kind of
    system) would otherwise borrow the average of every other card; assuming it resells like
    the worst-reselling class keeps a guess from tipping a plan towards buying.
    """
    classes = sorted({g.gpu_class for g in cat.gpus} - {gpu.gpu_class})
    worst: Knots = ()
    for cls in classes:
        key = ("class", cls)
        obs = _pick(cat, key, _class_is(cls))
        if len(obs) >= min_points:
            knots = _knots(cat, key, obs)
            worst = lower_envelope(worst, knots, tail) if worst else knots
    return worst


def build_curve(cat: Catalog, gpu: Gpu) -> ResaleCurve | None:
    """The card's curve from the narrowest level with data, haircut when its data are thin.

    Two haircuts, both the lower of two curves at each age: a level with fewer than
    `resale_min_points` observations is capped by the next wider level that has enough; and a
    card whose whole class has fewer than that is capped by the worst class with enough.
    """
    tail = assumption(cat, "resale_tail_annual_decline").value
    min_points = assumption(cat, "resale_min_points").value
    levels = [(name, key, _pick(cat, key, test)) for name, key, test in _levels(gpu)]
    chosen = next(((n, k, obs) for n, k, obs in levels if obs), None)
    if chosen is None:
        return None
    basis, key, obs = chosen
    knots = _knots(cat, key, obs)
    haircut = None
    wider = [(n, k, o) for n, k, o in levels[BASES.index(basis) + 1 :] if len(o) >= min_points]
    if len(obs) < min_points and wider:
        haircut = wider[0][0]
        knots = lower_envelope(knots, _knots(cat, wider[0][1], wider[0][2]), tail)
    if len(levels[BASES.index("class")][2]) < min_points:
        worst = cat.derived(
            ("resale_worst_class", gpu.gpu_class),
            lambda: _worst_class(cat, gpu, min_points, tail),
        )
        if worst:
            haircut, knots = "worst_class", lower_envelope(knots, worst, tail)
    return ResaleCurve(
        knots=knots,
        tail_annual_decline=tail,
        basis=basis,
        cards=tuple(sorted({o.gpu for o in obs})),
        points=len(obs),
        sources=tuple(dict.fromkeys(o.source for o in obs)),
        haircut=haircut,
    )


def resale_curve(cat: Catalog, gpu: Gpu) -> ResaleCurve | None:
    """The card's curve, built once per catalog (None when no card at all has data)."""
    return cat.derived(("resale_curve", gpu.id), lambda: build_curve(cat, gpu))
