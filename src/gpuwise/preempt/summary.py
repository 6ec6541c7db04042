"""Summarise a supervise journal: wall time, interruptions, lost work, and what they cost (pure).

Definitions (docs/supervise.md, "The report"):

- **wall time**: from each run's start to its end (or its last event, when the machine died
  before writing one), summed over runs; **running time** counts only while the command ran.
- **interruption**: a run that ended on a preemption notice or a platform SIGTERM, or that
  stopped without an end record (the machine vanished). A command failing on its own is a
  **failure**, listed apart; its lost work counts too.
- **lost work** of an interruption: from the newer of the attempt's start and the content time
  (`mtime_ns`) of its last checkpoint completed before the stop, to the stop. A checkpoint saved
  on the notice makes it small; one written before the notice (but confirmed by a scan after it)
  is not "saved on the notice" and does not.
- **restart time**: from the stop to the next start of the command (on any machine sharing the
  journal).
- **cost**: (lost work + restart time) × the instance's hourly price, the same items gpuwise.cost
  bills as spot rework. The planner's inputs follow from the measured figures: interruptions per
  day of running, mean restart minutes, and the checkpoint interval that makes the rework model's
  "half an interval lost" equal the measured mean loss (2 × mean lost work). Each is kept within
  the range `gpuwise cost` accepts for its flag (a 10 s run with one interruption measures
  8 640 a day, more than cost's 1 440): a clamped figure is listed by :meth:`plan_clamps`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any

from gpuwise.preempt.cadence import intervals
from gpuwise.units import QUANTITIES

INTERRUPTING = ("preempted", "platform-sigterm")
MTIME_SLACK_S = 0.02  # file times trail the wall clock by up to a kernel tick (runner.py)
PLAN_FLAGS = (
    ("spot_interruptions_per_day", "--spot-interruptions-per-day", "interruptions_per_day", 2),
    ("restart_min", "--restart-min", "restart_min", 1),
    ("checkpoint_min", "--checkpoint-min", "checkpoint_min", 1),
)
"""plan_inputs key, `gpuwise cost` flag, its units.QUANTITIES range, digits the report prints."""


@dataclass(frozen=True)
class JournalEvent:
    """One journal row: which run, when (Unix seconds), what, and its details."""

    run_id: int
    t: float
    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Interruption:
    """One time the work stopped before the command finished."""

    run_id: int
    t: float
    cause: str  # preempted | platform-sigterm | vanished | failed
    lost_s: float
    checkpoint_on_notice: bool
    restart_s: float | None
    killed: bool = False  # the command ignored the stop signal and was SIGKILLed

    def as_dict(self) -> dict[str, object]:
        """JSON shape."""
        return {
            "run_id": self.run_id,
            "t": self.t,
            "cause": self.cause,
            "lost_s": round(self.lost_s, 3),
            "checkpoint_on_notice": self.checkpoint_on_notice,
            "restart_s": None if self.restart_s is None else round(self.restart_s, 3),
            "killed": self.killed,
        }


@dataclass(frozen=True)
class JobSummary:
    """Everything the report shows about one job."""

    job: str
    runs: int
    attempts: int
    wall_s: float
    running_s: float
    stops: tuple[Interruption, ...]
    checkpoints: int
    last_checkpoint: str | None
    save_s: tuple[float, ...]
    interval_s: tuple[float, ...]
    finished: bool

    @property
    def interruptions(self) -> tuple[Interruption, ...]:
        """Stops caused by the platform (not the command's own failures)."""
        return tuple(s for s in self.stops if s.cause != "failed")

    @property
    def failures(self) -> tuple[Interruption, ...]:
        """Stops where the command failed on its own."""
        return tuple(s for s in self.stops if s.cause == "failed")

    @property
    def lost_s(self) -> float:
        """Work lost over every stop."""
        return sum(s.lost_s for s in self.stops)

    @property
    def restart_s(self) -> float:
        """Time spent getting going again over every stop that was followed by a restart."""
        return sum(s.restart_s for s in self.stops if s.restart_s is not None)

    def measured_plan_inputs(self) -> dict[str, float | None]:
        """The figures for spot rework as measured, before fitting them to cost's ranges."""
        hours = self.running_s / 3600
        n = len(self.interruptions)
        restarts = [s.restart_s for s in self.interruptions if s.restart_s is not None]
        lost = [s.lost_s for s in self.interruptions]
        return {
            "spot_interruptions_per_day": (n / hours * 24) if hours > 0 else None,
            "restart_min": fmean(restarts) / 60 if restarts else None,
            "checkpoint_min": 2 * fmean(lost) / 60 if lost else None,
        }

    def plan_inputs(self) -> dict[str, float | None]:
        """The figures `gpuwise cost`/`plan` take for spot rework, measured on this job and
        kept within the range each flag accepts (so the suggested command line runs)."""
        measured = self.measured_plan_inputs()
        return {key: _fit_range(measured[key], q, d) for key, _f, q, d in PLAN_FLAGS}

    def plan_clamps(self) -> list[dict[str, Any]]:
        """The plan inputs that had to be clamped: flag, measured value, value suggested."""
        measured, used = self.measured_plan_inputs(), self.plan_inputs()
        out: list[dict[str, Any]] = []
        for key, flag, _quantity, _digits in PLAN_FLAGS:
            value = measured[key]
            if value is not None and used[key] != value:
                out.append({"flag": flag, "measured": value, "used": used[key]})
        return out


def summarise(job: str, events: Iterable[JournalEvent]) -> JobSummary:
    """Fold one job's events (any order) into its summary."""
    ordered = sorted(events, key=lambda e: (e.t, e.run_id))
    runs = _by_run(ordered)
    stops: list[Interruption] = []
    wall = running = 0.0
    attempts = 0
    saves: list[float] = []
    gaps: list[float] = []
    finished = False
    for run_id, evs in runs.items():
        wall += evs[-1].t - evs[0].t
        segs = _segments(evs)
        attempts += len(segs)
        for seg in segs:
            running += seg.stop_t - seg.start_t
            gaps.extend(intervals(seg.periodic_ts))
            saves.extend(seg.saves)
            if seg.cause is not None:
                stops.append(_stop(run_id, seg, ordered))
        end = _end(evs)
        finished = finished or (end is not None and end.data.get("outcome") == "completed")
    checkpoints = [e for e in ordered if e.kind == "checkpoint" and not e.data.get("preexisting")]
    saved = [e for e in ordered if e.kind == "checkpoint"]
    newest = max(saved, key=lambda e: (int(e.data.get("mtime_ns") or 0), e.t), default=None)
    last = str(newest.data.get("path")) if newest else None
    return JobSummary(
        job, len(runs), attempts, wall, running, tuple(stops), len(checkpoints), last,
        tuple(saves), tuple(gaps), finished,
    )  # fmt: skip


def _fit_range(value: float | None, quantity: str, digits: int) -> float | None:
    """`value` moved into the range `gpuwise cost` accepts for it, as the report prints it with
    `digits` decimals (above an open lower bound: at least the smallest printed step)."""
    if value is None:
        return None
    q = QUANTITIES[quantity]
    lo = q.lo + 10.0**-digits if q.lo_open else q.lo
    return min(max(value, lo), q.hi)


@dataclass
class _Segment:
    start_t: float
    stop_t: float
    cause: str | None
    checkpoint_ts: list[float]
    periodic_ts: list[float]
    saves: list[float]
    on_notice: bool
    notice_t: float | None = None
    killed: bool = False


def _by_run(events: list[JournalEvent]) -> dict[int, list[JournalEvent]]:
    runs: dict[int, list[JournalEvent]] = {}
    for e in events:
        runs.setdefault(e.run_id, []).append(e)
    return runs


def _end(evs: list[JournalEvent]) -> JournalEvent | None:
    return next((e for e in reversed(evs) if e.kind == "run_end"), None)


def _segments(evs: list[JournalEvent]) -> list[_Segment]:
    """One segment per start of the command within a run, with why it stopped (None: finished)."""
    segs: list[_Segment] = []
    current: _Segment | None = None
    end = _end(evs)
    outcome = str(end.data.get("outcome", "")) if end else ""
    for e in evs:
        if e.kind == "child_start":
            current = _Segment(e.t, e.t, None, [], [], [], False)
            segs.append(current)
        elif current is None:
            continue
        elif e.kind == "notice" and current.notice_t is None:
            current.notice_t = e.t
        elif e.kind == "checkpoint" and not e.data.get("preexisting"):
            content_t = _content_t(e)
            current.checkpoint_ts.append(content_t)
            if e.data.get("save_s") is not None:
                current.saves.append(float(e.data["save_s"]))
            notice_t = current.notice_t
            if e.data.get("on_notice") and (notice_t is None or content_t >= notice_t):
                current.on_notice = True
            else:
                current.periodic_ts.append(e.t)
        elif e.kind == "child_exit":
            current.stop_t = e.t
            current.killed = bool(e.data.get("killed"))
            code = e.data.get("code")
            current.cause = "failed" if code not in (0, None) else None
            current = None
    if segs:
        last = segs[-1]
        if end is None:
            last.stop_t = max(last.stop_t, evs[-1].t)
            last.cause = "vanished"
        elif outcome in INTERRUPTING:
            last.cause = outcome
    return segs


def _content_t(e: JournalEvent) -> float:
    """When a checkpoint's content was written: its newest file time (`mtime_ns`, less the
    clock slack), else when the scan confirmed it. A journal written before mtimes were recorded
    falls back to the confirmation time."""
    mtime_ns = e.data.get("mtime_ns")
    if isinstance(mtime_ns, int) and mtime_ns > 0:
        return min(e.t, mtime_ns / 1e9 + MTIME_SLACK_S)
    return e.t


def _stop(run_id: int, seg: _Segment, ordered: list[JournalEvent]) -> Interruption:
    before = [t for t in seg.checkpoint_ts if t <= seg.stop_t]
    base = max([seg.start_t, *before])
    nxt = next((e.t for e in ordered if e.kind == "child_start" and e.t > seg.stop_t), None)
    restart = None if nxt is None else nxt - seg.stop_t
    lost = seg.stop_t - base
    return Interruption(
        run_id, seg.stop_t, seg.cause or "", lost, seg.on_notice, restart, seg.killed
    )


def interruption_cost(summary: JobSummary, price_per_hour: float) -> dict[str, float]:
    """What the stops cost at `price_per_hour`: lost work and restart time, billed alike."""
    lost_h = summary.lost_s / 3600
    restart_h = summary.restart_s / 3600
    return {
        "lost_hours": lost_h,
        "restart_hours": restart_h,
        "lost_cost": lost_h * price_per_hour,
        "restart_cost": restart_h * price_per_hour,
        "total_cost": (lost_h + restart_h) * price_per_hour,
    }
