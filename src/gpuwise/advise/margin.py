"""An option's speed and run time at the slow end of the estimate's error band.

Every speed figure carries a band (estimate/speed_band.py): the p10 and p90 of measured ÷
estimated over published measurements each predicted by a fit that had not seen their source.
The plan checks targets (tokens/s, the reading-speed floor) and deadlines against the slow end
of that band — the p10 rate, the p90 hours — not the central figure, and says so.

Policy for an option that meets a limit only at the central estimate: it is infeasible (a
blocker that names both figures), not a ranked option with a risk. Why, as a capacity planner
would: a target or a deadline is what the user asked the plan to guarantee, and the central
figure is a coin toss — held-out setups fell below it about half the time, and below the p10
one time in ten. The cost of a miss is lopsided: a bought card that is too slow stays bought,
and a missed deadline cannot be rented back. Ranking such an option, even with a warning,
would let the cheapest gamble win the headline. The user still sees how close it came (the
blocker quotes the central figure), and the fixes quote the target or deadline that every
option's slow end does reach. Without band data the figure itself is used (nothing is
invented); a card whose speed is unknown stays "unchecked".

Pure: reads the SpeedEstimate a sizing carries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpuwise.advise.scenario import Scenario
from gpuwise.estimate.speed import SpeedEstimate

if TYPE_CHECKING:
    from gpuwise.advise.sizing import Sized

Fired = tuple[str, dict[str, Any]]
_RATES = ("serving_tokens_per_s", "decode_tokens_per_s", "train_tokens_per_s")
"""The figure a sizing's tokens/s is (advise/sizing.py), in the same order of preference."""


def rate_ratios(sp: SpeedEstimate) -> tuple[float, float] | None:
    """(p10, p90) of the headline rate as fractions of it; None without band data."""
    for name in _RATES:
        value = getattr(sp, name)
        if value:
            if not sp.band or name not in sp.band:
                return None
            low, high = sp.band[name]
            return low / value, high / value
    return None


def hours_ratios(sp: SpeedEstimate) -> tuple[float, float] | None:
    """(short, long) hours of a training run as fractions of the estimate; None without band."""
    if not sp.train_time_h or not sp.band or "train_time_h" not in sp.band:
        return None
    short, long = sp.band["train_time_h"]
    return short / sp.train_time_h, long / sp.train_time_h


def tokens_band(sized: Sized) -> tuple[float, float] | None:
    """The p10–p90 range of the option's tokens/s (replicas included); None without band."""
    ratios = rate_ratios(sized.speed) if sized.speed_known else None
    if ratios is None:
        return None
    return sized.tokens_per_s * ratios[0], sized.tokens_per_s * ratios[1]


def slow_tokens_per_s(sized: Sized) -> float:
    """The tokens/s targets are checked at: the band's p10, else the estimate itself."""
    band = tokens_band(sized)
    return band[0] if band else sized.tokens_per_s


def hours_band(sized: Sized, hours: float | None) -> tuple[float, float] | None:
    """The p10–p90 range (shortest, longest) of `hours` of this option's run; None without."""
    ratios = hours_ratios(sized.speed) if sized.speed_known and hours else None
    if ratios is None or hours is None:
        return None
    return hours * ratios[0], hours * ratios[1]


def slow_hours(sized: Sized, hours: float) -> float:
    """The hours deadlines are checked at: the band's long (p90) end, else the estimate."""
    band = hours_band(sized, hours)
    return band[1] if band else hours


def throughput_blocker(sized: Sized, target: float, floor: bool = False) -> Fired | None:
    """The blocker of an option whose tokens/s misses `target` at the slow end of its band
    (a target the user set, or with `floor` the reading-speed floor); None when it meets it."""
    slow = slow_tokens_per_s(sized)
    if slow >= target:
        return None
    key = "plan.block_reading_speed" if floor else "plan.block_throughput"
    if slow < sized.tokens_per_s and sized.tokens_per_s >= target:
        key += "_band"  # meets it only at the central estimate: say so
    return (key, {"tps": sized.tokens_per_s, "low": slow, "target": target})


def deadline_blocker(sized: Sized, hours: float, days: float) -> Fired | None:
    """The blocker of a run that ends after `days` at the long end of its band; None if not."""
    slow = slow_hours(sized, hours)
    if slow <= days * 24:
        return None
    key = "plan.block_deadline_band" if hours <= days * 24 else "plan.block_deadline"
    return (key, {"hours": hours, "high": slow, "days": days})


def band_assumption(s: Scenario, floor: float | None, options: list[Any]) -> list[Fired]:
    """The plan's note that its limits were checked at the slow end of the band, with the first
    option's band: only when a speed target, the reading floor or a deadline was checked."""
    training = s.workload.kind == "train"
    checked = bool(s.deadline_days) if training else bool(s.workload.target_tokens_per_s or floor)
    if not checked or not options:
        return []
    o = options[0]
    if training:
        band = hours_band(o.sized, o.time_hours)
        key = "plan.assume_band_hours"
    else:
        band = tokens_band(o.sized)
        key = "plan.assume_band_speed"
    if band is None:
        return []
    return [(key, {"low": band[0], "high": band[1]})]


def band_fields(
    sized: Sized, hours: float | None
) -> tuple[tuple[float, float] | None, tuple[float, float] | None]:
    """The --json band fields of an option (rounded): tokens/s and, for a timed run, hours."""
    speed, time = tokens_band(sized), hours_band(sized, hours)
    return (
        (round(speed[0], 1), round(speed[1], 1)) if speed else None,
        (round(time[0], 2), round(time[1], 2)) if time else None,
    )
