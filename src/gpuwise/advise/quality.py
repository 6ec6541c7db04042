"""The quality floor of a job: the fewest bits per weight its output should be made at.

A one-off batch's output is the product (synthetic data, labels): it runs at 8 bits or more
first (plan assumption batch_quality_floor_bits: FP8 and INT8 W8A8 are near-lossless). A
service or local chat holds 4 bits (interactive_quality_floor_bits: llama.cpp's own table puts
Q3_K_M at 3.7 times Q4_K_M's perplexity loss). An option below its floor carries a risk and
ranks after those at it (ranking.rank_key).

A model released in a compressed format is judged against its own checkpoint: gpt-oss was
post-trained in MXFP4 (its model card), so running it as shipped loses nothing, and a floor
above the bits it ships in would mark every way to run it (blind w48-03).
"""

from __future__ import annotations

from typing import Any

QUALITY_FLOOR_RISKS = ("risk.batch_below_quality_floor", "risk.below_quality_floor")
"""Risks of an option run below its job's quality floor (quality_floor_risk)."""


def job_floors(
    batch: float | None, interactive: float | None, shipped_bits: float | None
) -> tuple[float | None, float | None]:
    """The job's (batch, interactive) floors, none above the bits the model ships in."""
    if shipped_bits is None:
        return batch, interactive
    return (
        min(batch, shipped_bits) if batch else batch,
        min(interactive, shipped_bits) if interactive else interactive,
    )


def quality_floor_risk(
    quant: str, bits: float, floors: tuple[float | None, float | None]
) -> tuple[str, dict[str, Any]] | None:
    """The risk of a format below the job's quality floor: a one-off batch's (its output is
    the product: plan assumption batch_quality_floor_bits, 8) else a service's or local
    chat's (interactive_quality_floor_bits, 4: 3-bit k-quants lose several times the
    perplexity of 4-bit ones); None at or above it, or for training."""
    batch, interactive = floors
    if batch:
        return (
            ("risk.batch_below_quality_floor", {"quant": quant, "bits": batch})
            if bits < batch
            else None
        )
    if interactive and bits < interactive:
        return ("risk.below_quality_floor", {"quant": quant, "bits": interactive})
    return None
