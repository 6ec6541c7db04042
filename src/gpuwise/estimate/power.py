"""Sustained tensor rate of power-limited cards.

A datasheet's tensor peak is counted at the boost clock. Long GEMMs (a prompt's prefill, a
training step) drive the tensor cores at full activity, and a card whose board power is small
for its tensor width cannot hold that clock: the L4 (72 W) and the L40S (350 W) are one Ada
design, the A10 (150 W) a GA102 like the A40 (300 W), the H100 PCIe (350 W) an H100 SXM (700 W)
with fewer units.

Dynamic power is C·V²·f and, in the DVFS range, the voltage rises with the clock, so power grows
about as f³ and the sustained clock as P^(1/3) (`clock_power_exponent` in speed.toml). A card is
compared with the full-power data-centre part of its own SM version (the highest board power
among them: the A100 SXM for sm_80, the H100 SXM for sm_90, the L40S for sm_89, the MI325X for
CDNA 3), whose sustained rate is what the fitted shares and the measured matmul ceilings
(MAMF) describe, through its watts per dense 16-bit tensor TFLOP:

    derate = min(1, (W/TFLOP of the card ÷ W/TFLOP of the reference)) ** exponent

Cards with no such sibling (Apple, RDNA, Turing, RTX 50) keep their datasheet peak.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from gpuwise.catalog.schema import Gpu
from gpuwise.catalog.schema_speed import PowerScaling


def watts_per_tensor_tflop(gpu: Gpu, half_accumulate: float = 1.0) -> float | None:
    """Board power per dense 16-bit tensor TFLOP at the best accumulate the card offers
    (GeForce cards accumulate FP16 at twice their FP32-accumulate rate); None without both."""
    peak = gpu.tflops.bf16 or gpu.tflops.fp16
    if not gpu.tdp_w or not peak or gpu.unified_memory:
        return None
    return gpu.tdp_w / (peak * half_accumulate)


def power_references(
    gpus: Iterable[tuple[Gpu, str, float]], scaling: PowerScaling
) -> dict[str, float]:
    """W/TFLOP of each SM version's full-power part: of the reference class, the highest board
    power (the lowest W/TFLOP among equals). `gpus` are (card, SM-version key, FP16-accumulate
    factor)."""
    best: dict[str, tuple[float, float]] = {}
    for gpu, key, half in gpus:
        wpt = watts_per_tensor_tflop(gpu, half)
        if wpt is None or gpu.gpu_class != scaling.reference_class:
            continue
        rank = (float(gpu.tdp_w or 0), -wpt)
        if key not in best or rank > (best[key][0], -best[key][1]):
            best[key] = (rank[0], wpt)
    return {key: wpt for key, (_, wpt) in best.items()}


def power_derate(
    gpu: Gpu,
    key: str,
    half_accumulate: float,
    references: Mapping[str, float],
    scaling: PowerScaling | None,
) -> float:
    """The share of its datasheet tensor peak the card sustains through long GEMMs (≤ 1)."""
    wpt = watts_per_tensor_tflop(gpu, half_accumulate)
    ref = references.get(key)
    if scaling is None or wpt is None or ref is None or wpt >= ref:
        return 1.0
    return float((wpt / ref) ** scaling.clock_power_exponent)
