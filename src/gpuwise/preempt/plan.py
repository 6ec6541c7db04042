"""When the VM goes away, and how long to wait for a checkpoint before then (pure).

A notice either carries the time the VM goes away (AWS, Azure, Alibaba, Tencent, Volcano Engine)
or only says "now being reclaimed" (GCP, a SIGTERM from the platform); then the deadline is the
moment it was first seen plus the documented notice length. The supervisor waits for a new
checkpoint until `deadline - margin`, the margin being left for the trainer to exit and the disk
to flush: the user's `--margin-s`, else a fraction of the time left (catalog:
supervise_setting.notice_margin_fraction).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass


@dataclass(frozen=True)
class WaitPlan:
    """The deadline of one notice and when to stop waiting for its checkpoint."""

    deadline: dt.datetime
    wait_until: dt.datetime
    margin_s: float
    left_s: float

    def as_dict(self) -> dict[str, object]:
        """JSON shape (ISO times, seconds)."""
        return {
            "deadline": self.deadline.isoformat(),
            "wait_until": self.wait_until.isoformat(),
            "margin_s": round(self.margin_s, 3),
            "left_s": round(self.left_s, 3),
        }


def resolve_deadline(
    announced: dt.datetime | None, detected_at: dt.datetime, notice_s: float
) -> dt.datetime:
    """The announced time, or detection time + the documented notice when none was given."""
    if announced is not None:
        return announced
    return detected_at + dt.timedelta(seconds=notice_s)


def margin_for(left_s: float, margin_s: float | None, margin_fraction: float) -> float:
    """Seconds kept back before the deadline: the user's margin, else a fraction of what is left."""
    if margin_s is not None:
        return max(0.0, margin_s)
    return max(0.0, left_s) * margin_fraction


def plan_wait(
    deadline: dt.datetime,
    now: dt.datetime,
    margin_s: float | None,
    margin_fraction: float,
) -> WaitPlan:
    """Wait until `deadline - margin`, never before `now` (a late notice still gets its signal)."""
    left_s = (deadline - now).total_seconds()
    margin = margin_for(left_s, margin_s, margin_fraction)
    wait_until = max(now, deadline - dt.timedelta(seconds=margin))
    return WaitPlan(deadline, wait_until, margin, left_s)
