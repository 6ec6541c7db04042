"""What a serving measurement tells the fit: its decode step, or its prefill share.

A serving case's cycle is c prompts' prefill and gen − 1 decode steps of c sequences (speed.py
`_serving`); the measurement gives the cycle's length (c × gen ÷ output tokens/s). Where decode
steps are most of it (short prompts, long answers, few requests), the cycle less the prefill
priced with constants fitted without serving cases is gen − 1 steps, and each step is a row of
the linear decode fit like a batch-1 decode case. Where prefill is most of it (thousands of
prompt tokens, a few hundred out), the prefill share of the tensor rate that reproduces the
cycle is found by bisection, as for a prefill case. So a saturated server teaches the same
bandwidth shares, step overheads and GEMM shares as the benchmarks of one request do.
"""

from __future__ import annotations

from dataclasses import replace

from gpuwise.catalog.schema_speed import PrefillEfficiency
from gpuwise.estimate.speed import collective_bps, decode_terms, prefill_parts, rates
from gpuwise.estimate.speed_cases import PreparedCase, predicted
from gpuwise.estimate.speed_constants import FIT_SOURCE, SpeedConstants

MIXED_PREFILL_SHARE_MAX = 0.1
"""An engine that mixes prompt chunks into decode steps: a serving case teaches its decode step
only while its prompts are a small part of the cycle (where overlapping them changes little)."""


def _cycle_parts(pc: PreparedCase, sc: SpeedConstants) -> tuple[float, float, float] | None:
    """(measured cycle seconds, prefill seconds at sc's rates, gen − 1) of a serving case."""
    c = pc.inputs.concurrency or 0
    gen = pc.inputs.gen_tokens
    if pc.kind != "serving" or c < 1 or gen < 2:
        return None
    rt = rates(pc.r, sc, pc.gpu, pc.inputs.backend, pc.inputs.built, pc.inputs.enforce_eager)
    link = collective_bps(pc.gpu, sc, pc.r.req.gpus)
    prefill = prefill_parts(pc.r, rt, pc.r.prompt_tokens, c, link).total
    return c * gen / pc.measured, prefill, gen - 1


def decode_step_seconds(pc: PreparedCase, pre: SpeedConstants | None) -> tuple[float, int] | None:
    """Measured seconds of one decode step and its batch: a decode case's directly; a serving
    case's when its decode steps are at least `compute_share_min` of the cycle and memory-bound
    at `pre`'s rates (the fit is linear in the memory-bound step); else None."""
    if pc.kind == "decode":
        return pc.r.req.batch / pc.measured, pc.r.req.batch
    if pre is None:
        return None
    parts = _cycle_parts(pc, pre)
    if parts is None:
        return None
    cycle, prefill, steps = parts
    decode = cycle - prefill
    if decode < pre.fit.compute_share_min * cycle:
        return None
    batch = pc.inputs.concurrency or 1
    rt = rates(pc.r, pre, pc.gpu, pc.inputs.backend, pc.inputs.built, pc.inputs.enforce_eager)
    if rt.mixed_steps and prefill > MIXED_PREFILL_SHARE_MAX * cycle:
        return None  # prompt chunks hide in the decode steps: the cycle is no longer a sum
    ctx = pc.r.prompt_tokens + pc.inputs.gen_tokens / 2
    t = decode_terms(pc.r, batch, ctx, kv_read_factor=rt.kv_read_factor)
    expert_bps = rt.expert_bandwidth_bps or rt.bandwidth_bps
    memory = (t.weight_bytes - t.expert_bytes + t.kv_bytes) / rt.bandwidth_bps
    if t.flops / rt.flops > memory + t.expert_bytes / expert_bps:
        return None
    return decode / steps, batch


def implied_serving_prefill_fraction(pc: PreparedCase, sc: SpeedConstants) -> float | None:
    """The prefill share that reproduces a serving case's throughput, when prefill is at least
    `compute_share_min` of its cycle at that share (None otherwise, or when no share does)."""
    if pc.kind != "serving" or not pc.inputs.concurrency:
        return None

    def at(share: float) -> SpeedConstants:
        entry = PrefillEfficiency(fraction=share, source=FIT_SOURCE)
        return replace(sc, prefill=(entry,))

    lo, hi = 1e-3, 1.0
    if predicted(pc, at(hi)) < pc.measured or predicted(pc, at(lo)) > pc.measured:
        return None
    while hi / lo > 1.001:
        mid = (lo * hi) ** 0.5
        if predicted(pc, at(mid)) < pc.measured:
            lo = mid
        else:
            hi = mid
    share = (lo * hi) ** 0.5
    parts = _cycle_parts(pc, at(share))
    if parts is None:
        return None
    cycle, prefill, _ = parts
    return share if prefill >= sc.fit.compute_share_min * cycle else None
