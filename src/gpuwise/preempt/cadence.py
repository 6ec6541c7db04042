"""Is the checkpoint cadence good enough for the cloud's notice? (pure)

Two measured figures decide it:

- the time one checkpoint takes to write (`save_s`: first seen changing → complete). If it is
  longer than the usable notice (`notice_s - margin_s`), a save started on the notice cannot
  finish: every interruption then falls back to the last periodic checkpoint. A 15-minute save
  on a 30-second notice is the textbook case.
- the interval between periodic checkpoints. Falling back to one loses, on average, half an
  interval (an interruption strikes uniformly between two checkpoints), the same first-order
  model gpuwise.cost.spot uses for the planner's spot rework.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from statistics import median


@dataclass(frozen=True)
class CadenceVerdict:
    """What the measured saves and intervals mean against one notice length."""

    notice_s: float
    usable_s: float
    save_s: float | None
    interval_s: float | None
    save_fits: bool | None
    expected_loss_s: float | None

    @property
    def flagged(self) -> bool:
        """True when a save started on the notice cannot finish in time."""
        return self.save_fits is False

    def as_dict(self) -> dict[str, object]:
        """JSON shape (seconds)."""
        return {
            "notice_s": self.notice_s,
            "usable_s": round(self.usable_s, 3),
            "median_save_s": None if self.save_s is None else round(self.save_s, 3),
            "median_interval_s": None if self.interval_s is None else round(self.interval_s, 3),
            "save_fits_notice": self.save_fits,
            "expected_loss_without_notice_save_s": (
                None if self.expected_loss_s is None else round(self.expected_loss_s, 3)
            ),
            "flagged": self.flagged,
        }


def intervals(completed_ts: list[float]) -> list[float]:
    """Gaps between consecutive checkpoint completions (seconds)."""
    ts = sorted(completed_ts)
    return [b - a for a, b in pairwise(ts)]


def check_cadence(
    save_s: list[float], interval_s: list[float], notice_s: float, margin_s: float
) -> CadenceVerdict:
    """Median save time against the usable notice; half the median interval is the fallback."""
    usable = max(0.0, notice_s - margin_s)
    save = median(save_s) if save_s else None
    gap = median(interval_s) if interval_s else None
    fits = None if save is None else save <= usable
    loss = None if gap is None else gap / 2
    return CadenceVerdict(notice_s, usable, save, gap, fits, loss)
