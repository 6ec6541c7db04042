"""One prefill: the prompt's FLOPs (MoE experts weighed by their small-GEMM slowdown), its
attention at its own rate, weight reads, staging copies, tensor-parallel all-reduces and launch
cost, part by part.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gpuwise.estimate.resolve import Resolved
from gpuwise.estimate.speed_decode import _attention_flops_per_token
from gpuwise.estimate.speed_rates import Rates
from gpuwise.estimate.weights import expert_params, weight_bytes


def prompt_flops(r: Resolved, prompt: int, prefix: int = 0) -> float:
    """FLOPs of one prompt: 2 × the weights each token multiplies, plus causal attention, plus
    the output head, plus a vision encoder's pass over the images behind the prompt's image
    tokens (Vision.encoder_flops). `prefix`: tokens of the same sequence already in the KV
    cache (an engine's prefix cache), which the prompt's tokens attend to but are not
    computed again.

    The input embedding is a table lookup (no FLOPs), and engines that keep only the last
    position's logits (llama.cpp, vLLM, SGLang, TensorRT-LLM, transformers ≥ 4.45: the engine's
    `logits_last_token_only`) project to the vocabulary once per prompt. Counting 2 × all
    parameters per prompt token overstates small models most: the head is 12% of Llama 3.2 3B.
    """
    m = r.req.model
    head = float(m.vocab_size * m.hidden_size)
    tables = head if m.tied_embeddings else 2 * head
    body = max(m.active_params_b * 1e9 - tables, 0.0)
    head_tokens = 1 if r.engine.logits_last_token_only else prompt
    # a prompt after a cached prefix attends to the prefix too: mean context prefix + prompt/2
    attention = _attention_flops_per_token(r, prefix + prompt / 2)
    images = 0.0
    if m.vision is not None and r.req.image_tokens:  # the encoder runs before the prompt
        images = m.vision.encoder_flops(min(r.req.image_tokens, prompt))
    return prompt * (2 * body + attention) + 2 * head * head_tokens + images


def moe_tile_slowdown(r: Resolved, prompt: int) -> float:
    """How much slower the routed experts' GEMMs run than dense ones, per FLOP (1 = as fast).

    An engine that multiplies each expert's weights by the tokens routed to it in one ubatch
    (llama.cpp's MMQ: up to `moe_tile_tokens` = 128 tokens per weight tile) reuses each loaded
    tile for only m = ubatch × active ÷ experts tokens: 32 for Qwen3-30B-A3B (128 experts, top 8)
    at llama.cpp's 512-token ubatch, 16 for gpt-oss-120b. Loading a tile is not hidden behind
    the work on it, so a tile's time goes as 1 + tile ÷ m (the sum, not the max, of the two),
    against 1 + tile ÷ ubatch for a dense GEMM of the same step: Qwen3-30B-A3B 4.0×,
    gpt-oss-120b 7.2×, gpt-oss-20b 2.4× at ubatch 512 and 1.41× at 2048. The sum is what the
    published runs show: at 256 tokens per expert (gpt-oss-20b, -ub 2048) the experts still run
    well below dense speed, where a max would predict none (tests/data/speed_cases.toml).
    """
    moe, tile = r.req.model.moe, r.engine.moe_tile_tokens
    if moe is None or not tile:
        return 1.0
    chunk = min(prompt, r.engine.prefill_chunk_tokens or prompt)
    per_expert = chunk * moe.active_experts / moe.experts
    return (1.0 + tile / per_expert) / (1.0 + tile / chunk)


def routed_flops_per_token(r: Resolved) -> float:
    """2 × the routed-expert weights one token multiplies (shared experts excluded)."""
    m = r.req.model
    if m.moe is None:
        return 0.0
    return 2 * expert_params(m) * m.moe.active_experts / m.moe.experts


def prefill_work_flops(r: Resolved, prompt: int, prefix: int = 0) -> float:
    """The prompt's FLOPs at the dense kernels' rate: routed-expert FLOPs weighed by how much
    slower their small per-expert GEMMs run (`moe_tile_slowdown`); `prefix` as prompt_flops."""
    slow = moe_tile_slowdown(r, prompt)
    extra = routed_flops_per_token(r) * prompt * (slow - 1.0) if slow > 1.0 else 0.0
    return prompt_flops(r, prompt, prefix) + extra


@dataclass(frozen=True)
class PrefillParts:
    """Seconds of one prefill by what spends them."""

    compute: float
    memory: float
    staging: float
    comm: float
    overhead: float
    attention: float = 0.0
    """Attention at its own (16-bit) rate, when that is not the GEMMs' (Rates.attention_flops);
    else its FLOPs are in `compute`."""

    @property
    def total(self) -> float:
        """GEMMs and attention overlap the weight reads; the rest runs in sequence."""
        busy = self.compute + self.attention
        return max(busy, self.memory) + self.staging + self.comm + self.overhead

    @property
    def bound(self) -> str:
        """What takes the longest."""
        parts = {
            "compute": self.compute + self.attention,
            "memory-bandwidth": self.memory + self.staging,
            "interconnect": self.comm,
        }
        return max(parts, key=lambda k: parts[k])


def prefill_parts(
    r: Resolved, rt: Rates, prompt: int, batch: int = 1, link_bps: float = 0.0, prefix: int = 0
) -> PrefillParts:
    """The time of `batch` prompts of `prompt` tokens, part by part (each after `prefix`
    tokens already cached: attended to, not computed).

    Tensor parallelism adds two all-reduces of the layer's activations (tokens × hidden × 2
    bytes, ring factor 2(N−1)/N) per layer. Kernels that dequantize to a 16-bit copy before
    the GEMM add that copy's traffic in sequence with it.
    """
    m = r.req.model
    tokens = prompt * batch
    work = prefill_work_flops(r, prompt, prefix) * batch / r.tp
    attention = 0.0
    if rt.attention_flops:
        per_token = _attention_flops_per_token(r, prefix + prompt / 2)
        attention_work = prompt * per_token * batch / r.tp
        work -= attention_work
        attention = attention_work / rt.attention_flops
    compute = work / rt.flops
    chunk = r.engine.prefill_chunk_tokens or tokens
    chunks = math.ceil(tokens / chunk)
    weights = weight_bytes(m, r.fmt, r.engine.embeddings_on_cpu).total
    memory = chunks * weights / r.tp / rt.bandwidth_bps
    staging = 0.0
    if rt.staging_bytes_per_weight:  # a 16-bit copy of each quantized matrix, before its GEMM
        elements = weights * 8 / r.fmt.bits_per_weight
        staging = chunks * elements * rt.staging_bytes_per_weight / r.tp / rt.bandwidth_bps
    comm = 0.0
    if r.tp > 1 and link_bps:
        ring = 2 * (r.tp - 1) / r.tp
        comm = 2 * m.layers * tokens * m.hidden_size * 2 * ring / link_bps
    overhead = chunks * m.layers * (rt.prefill_overhead_s_per_layer or rt.overhead_s_per_layer)
    return PrefillParts(compute, memory, staging, comm, overhead, attention)


def prefill_time(
    r: Resolved, rt: Rates, prompt: int, batch: int = 1, link_bps: float = 0.0, prefix: int = 0
) -> tuple[float, str]:
    """Seconds to process `batch` prompts of `prompt` tokens (after `prefix` cached ones), and
    the bound hit."""
    parts = prefill_parts(r, rt, prompt, batch, link_bps, prefix)
    return parts.total, parts.bound
