"""Expected rework from spot (preemptible) interruptions.

Each interruption loses, on average, half a checkpoint interval of work (it strikes uniformly
between two checkpoints) plus the time to get a new instance and load the checkpoint. The
expected extra billed hours are therefore

    busy_hours x interruptions_per_hour x (checkpoint_interval / 2 + restart_time)

a first-order estimate: it ignores interruptions during the rework itself, which is small while
interruptions_per_hour x (checkpoint / 2 + restart) is well below 1.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SpotRisk:
    """How often a spot instance is interrupted and how long a restart takes."""

    interruptions_per_hour: float
    restart_hours: float


def lost_hours_per_interruption(risk: SpotRisk, checkpoint_min: float) -> float:
    """Work lost since the last checkpoint (half an interval on average) plus the restart."""
    return checkpoint_min / 60 / 2 + risk.restart_hours


def expected_interruptions(busy_hours: float, risk: SpotRisk) -> float:
    """Expected interruptions over `busy_hours` of running."""
    return busy_hours * risk.interruptions_per_hour


def rework_hours(busy_hours: float, risk: SpotRisk, checkpoint_min: float) -> float:
    """Extra hours billed to redo lost work and restart, over `busy_hours` of useful work."""
    return expected_interruptions(busy_hours, risk) * lost_hours_per_interruption(
        risk, checkpoint_min
    )
