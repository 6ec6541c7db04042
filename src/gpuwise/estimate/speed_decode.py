"""One decode step: the weights (MoE: the experts the batch touches) and KV cache it reads,
the FLOPs it does, the quantized weights it unpacks, and its time at given rates.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuwise.estimate.kv import attended_keys, indexer_keys, kv_read_bytes
from gpuwise.estimate.layout import replicated_attention_bytes, sequences_per_gpu
from gpuwise.estimate.resolve import Resolved
from gpuwise.estimate.speed_rates import Rates, kernel_kind
from gpuwise.estimate.weights import expert_params, param_split, weight_bytes


def _read_bytes_per_token(r: Resolved, batch: int) -> float:
    """Weight bytes one decode step reads on one GPU (MoE: the experts the batch touches)."""
    m = r.req.model
    wb = weight_bytes(m, r.fmt, r.engine.embeddings_on_cpu)
    total = wb.total
    embedding, _, linear, counts = param_split(m)
    bits = 16.0 if r.fmt.quantizes != "all" else r.fmt.bits_per_weight
    if wb.embedding_on_gpu and not m.tied_embeddings:
        total -= embedding * bits / 8  # the input embedding is a lookup of one row
    if m.moe and counts.ffn_experts:
        scale = linear / max(1, counts.total - counts.embedding - counts.lm_head)
        expert_bytes = counts.ffn_experts * scale * r.fmt.bits_per_weight / 8
        total -= expert_bytes * (1 - _experts_touched(r, batch))
    return total / r.tp + replicated_attention_bytes(r.strategy, r.tp, m, r.fmt)


def _expert_read_bytes(r: Resolved, batch: int) -> float:
    """The routed experts' share of `_read_bytes_per_token`: the experts the batch touches."""
    m = r.req.model
    _, _, linear, counts = param_split(m)
    if not (m.moe and counts.ffn_experts):
        return 0.0
    scale = linear / max(1, counts.total - counts.embedding - counts.lm_head)
    expert_bytes = counts.ffn_experts * scale * r.fmt.bits_per_weight / 8
    return expert_bytes * _experts_touched(r, batch) / r.tp


def _experts_touched(r: Resolved, batch: int) -> float:
    """The share of experts a batch routes to: 1 − (1 − k/E)^batch (1 for a dense model)."""
    moe = r.req.model.moe
    if not moe or not moe.experts:
        return 1.0
    return 1 - (1 - moe.active_experts / moe.experts) ** batch


def _quantized_weights(r: Resolved, batch: int, weight_bytes_read: float) -> float:
    """Quantized weights one decode step unpacks on one GPU: the touched experts where only
    the experts are quantized (MXFP4), else every weight read."""
    if kernel_kind(r.fmt) == "float":
        return 0.0
    if r.fmt.quantizes == "experts":
        return expert_params(r.req.model) * _experts_touched(r, batch) / r.tp
    return weight_bytes_read * 8 / r.fmt.bits_per_weight


def _attention_flops_per_token(r: Resolved, context: float) -> float:
    """QKᵀ and attention×V: 2 × 2 × keys seen × heads × head_dim over the layers that attend
    (kv.attended_keys: a sliding-window layer sees its window, a DSA layer its top_k, a
    DeepSeek-V4 layer its window and compressed entries), plus a sparse model's indexer
    scoring every cached key (2 × index_heads × index_head_dim a key)."""
    m = r.req.model
    flops = 4.0 * attended_keys(m, context) * m.heads * m.head_dim
    index = m.compressed_attention or m.sparse_attention
    if index is not None:
        flops += 2.0 * indexer_keys(m, context) * index.index_heads * index.index_head_dim
    return flops


@dataclass(frozen=True)
class DecodeTerms:
    """What one decode step moves and computes on one GPU, before any efficiency is applied."""

    weight_bytes: float
    kv_bytes: float
    offload: float
    flops: float
    quantized_weights: float
    layers: int
    link_s: float
    expert_bytes: float = 0.0
    """The routed experts' part of `weight_bytes` (fused MoE kernels read them)."""


def decode_terms(
    r: Resolved,
    batch: int,
    context: float,
    offload: float = 0.0,
    link_latency_s: float = 0.0,
    kv_read_factor: float = 1.0,
) -> DecodeTerms:
    """The bytes, FLOPs and quantized weights of one step of `batch` sequences at `context`;
    the KV bytes are weighed by what reading them costs the engine (Rates.kv_read_factor)."""
    m = r.req.model
    weights = _read_bytes_per_token(r, batch)
    sequences = sequences_per_gpu(r.strategy, r.tp, batch)
    kv = (
        kv_read_bytes(
            m,
            max(1, int(context)),
            sequences,
            r.kv.bytes_per_element,
            r.engine.kv_latent_for_mla,
            r.tp,
        )
        * kv_read_factor
    )
    flops = batch * (2 * m.active_params_b * 1e9 + _attention_flops_per_token(r, context)) / r.tp
    quantized = _quantized_weights(r, batch, weights) * (1 - offload)
    link = 2 * m.layers * link_latency_s if r.tp > 1 else 0.0
    experts = _expert_read_bytes(r, batch)
    return DecodeTerms(weights, kv, offload, flops, quantized, m.layers, link, experts)


def step_time(t: DecodeTerms, rt: Rates, cpu_bps: float = 0.0) -> tuple[float, str]:
    """Seconds of one decode step at the given rates, and the bound hit."""
    expert_bps = rt.expert_bandwidth_bps or rt.bandwidth_bps
    dense = t.weight_bytes - t.expert_bytes
    memory = (dense * (1 - t.offload) + t.kv_bytes) / rt.bandwidth_bps
    memory += t.expert_bytes * (1 - t.offload) / expert_bps
    cpu = t.weight_bytes * t.offload / cpu_bps if t.offload and cpu_bps else 0.0
    compute = t.flops / rt.flops
    dequant = t.quantized_weights * rt.dequant_s_per_weight
    overhead = t.layers * rt.overhead_s_per_layer
    parts = {
        "memory-bandwidth": memory,
        "compute": compute,
        "dequantization": dequant,
        "offload-link": cpu,
        "interconnect": t.link_s,
        "per-token-overhead": overhead,
    }
    bound = max(parts, key=lambda k: parts[k])
    return max(memory, compute) + dequant + cpu + overhead + t.link_s, bound


def decode_step(
    r: Resolved,
    rt: Rates,
    batch: int,
    context: float,
    offload: float = 0.0,
    cpu_bps: float = 0.0,
    link_latency_s: float = 0.0,
) -> tuple[float, str]:
    """Seconds of one decode step for `batch` sequences at `context` tokens, and the bound hit."""
    terms = decode_terms(r, batch, context, offload, link_latency_s, rt.kv_read_factor)
    return step_time(terms, rt, cpu_bps)
