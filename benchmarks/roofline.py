"""The plain roofline any engineer writes by hand, the baseline issue 28 asks gpuwise to beat.

decode = 0.8 × bandwidth ÷ active weight bytes (× batch); prefill = 0.5 × dense 16-bit peak ÷
(2 × active parameters); a serving cycle and an end-to-end request combine the two the way
gpuwise does (c prompts, then gen − 1 steps of c); training = 0.5 × dense peak × GPUs ÷
(6 × active parameters). Tensor parallelism divides the bytes and FLOPs over the GPUs.
"""

from __future__ import annotations

from gpuwise.estimate.speed import peak_half_flops
from gpuwise.estimate.speed_cases import PreparedCase
from gpuwise.estimate.weights import weight_bytes


def _active_bytes(pc: PreparedCase) -> float:
    m, fmt = pc.r.req.model, pc.r.fmt
    total = weight_bytes(m, fmt).total
    return total * m.active_params_b / m.params_b


def roofline(pc: PreparedCase) -> float:
    """The tokens/s the hand roofline gives for the case's metric."""
    gpu, m, tp = pc.gpu, pc.r.req.model, max(1, pc.r.tp)
    step = _active_bytes(pc) / tp / (0.8 * (gpu.memory_bandwidth_gbps or 1.0) * 1e9)
    per_token = 2 * m.active_params_b * 1e9 / tp / (0.5 * peak_half_flops(gpu))
    if pc.kind == "decode":
        return pc.r.req.batch / step
    if pc.kind == "prefill":
        return 1 / per_token
    if pc.kind == "train":
        return 0.5 * peak_half_flops(gpu) * pc.r.req.gpus / (6 * m.active_params_b * 1e9)
    c = pc.inputs.concurrency or pc.r.req.batch
    gen = pc.inputs.gen_tokens
    cycle = c * pc.r.prompt_tokens * per_token + max(gen - 1, 0) * step
    return c * gen / cycle
