"""Parameter counts from an architecture's shapes.

Used to check catalog entries (the stated `params_b` must match the shapes) and to describe
models read from a local config.json. Counts every tensor a decoder-only checkpoint holds:
the embedding (and a learned position table), attention (q, k, v, o or MLA's low-rank
projections, with their biases, q/k norms, an output gate and a sparse-attention indexer),
linear-attention mixers of hybrids, feed-forward blocks (gated: gate, up, down as
Llama/Qwen/Gemma; plain: up, down as GPT-NeoX/Falcon/Phi-2), experts with their router,
Mamba mixers, every norm (LayerNorm: weight + bias; RMSNorm: weight), the LM head and a
vision tower (taken as stated: its shapes are not modelled).
Tied embeddings count once, as transformers loads them.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuwise.catalog.schema import LlmModel
from gpuwise.catalog.schema_arch import Ssm


@dataclass(frozen=True)
class ParamCounts:
    """Parameter counts split the way memory estimates need them."""

    embedding: int
    lm_head: int
    attention: int
    ffn_dense: int
    ffn_experts: int
    ffn_shared: int
    router: int
    active_experts_share: float
    ssm: int = 0
    norms: int = 0
    linear_attention: int = 0
    vision: int = 0

    @property
    def total(self) -> int:
        """Every weight (all experts, the vision tower)."""
        return (
            self.linear_attention
            + self.vision
            + self.embedding
            + self.lm_head
            + self.attention
            + self.ffn_dense
            + self.ffn_experts
            + self.ffn_shared
            + self.router
            + self.ssm
            + self.norms
        )

    @property
    def active(self) -> int:
        """Weights used per text token: experts scaled by the routed share; the vision tower
        runs once per image, not per token."""
        experts = round(self.ffn_experts * self.active_experts_share)
        return self.total - self.ffn_experts + experts - self.vision


def attention_params_per_layer(m: LlmModel) -> int:
    """q, k, v, o projections (+ biases, q/k norms); MLA compresses k/v (and q) via latents;
    DeepSeek-V4's compressed attention has its own shape (schema_arch.CompressedAttention)."""
    h = m.hidden_size
    if m.mla:
        a = m.mla
        qk = a.qk_nope_head_dim + a.qk_rope_head_dim
        if a.q_lora_rank:
            q = h * a.q_lora_rank + a.q_lora_rank + a.q_lora_rank * m.heads * qk
        else:
            q = h * m.heads * qk
        kv = h * (a.kv_lora_rank + a.qk_rope_head_dim) + a.kv_lora_rank
        kv += a.kv_lora_rank * m.heads * (a.qk_nope_head_dim + a.v_head_dim)
        indexer = m.sparse_attention.params_per_layer(h, a.q_lora_rank) if m.sparse_attention else 0
        return q + kv + m.heads * a.v_head_dim * h + indexer
    if m.compressed_attention:
        return m.compressed_attention.attention_params(
            h, m.heads, m.head_dim, m.kv_heads * m.head_dim
        )
    q_out = m.heads * m.head_dim
    kv_out = 2 * m.kv_heads * m.head_dim
    gate = h * q_out if m.attn_output_gate else 0  # q_proj's second half: the output gate
    weights = h * q_out + h * kv_out + q_out * h + gate
    biases = (q_out + kv_out if m.qkv_bias else 0) + (h if m.o_bias else 0)
    return weights + biases + (2 * m.head_dim if m.qk_norm else 0)


def ffn_params(m: LlmModel, width: int) -> int:
    """One feed-forward block of inner width `width`: 3 matrices gated, 2 plain, + biases."""
    h = m.hidden_size
    if m.gated_ffn:
        return 3 * h * width + ((2 * width + h) if m.ffn_bias else 0)
    return 2 * h * width + ((width + h) if m.ffn_bias else 0)


def ssm_params_per_layer(s: Ssm, hidden: int) -> int:
    """One Mamba mixer (projections, depthwise conv, A, D, dt) without the block's norm."""
    conv_channels = s.d_inner + (2 * s.groups * s.state_size if s.heads else 0)
    conv = conv_channels * s.conv_kernel + (conv_channels if s.conv_bias else 0)
    out = s.d_inner * hidden + (hidden if s.proj_bias else 0)
    if s.heads:  # Mamba-2: z, x, B, C and dt come from one in_proj; a gated RMSNorm on d_inner
        in_width = 2 * s.d_inner + 2 * s.groups * s.state_size + s.heads
        in_proj = hidden * in_width + (in_width if s.proj_bias else 0)
        return in_proj + conv + 3 * s.heads + s.d_inner + out
    in_proj = hidden * 2 * s.d_inner + (2 * s.d_inner if s.proj_bias else 0)
    x_proj = s.d_inner * (s.dt_rank + 2 * s.state_size)
    dt_proj = s.dt_rank * s.d_inner + s.d_inner
    return in_proj + conv + x_proj + dt_proj + s.d_inner * s.state_size + s.d_inner + out


def norm_params(m: LlmModel) -> int:
    """Every norm: per block, the final norm, q/k-free (those are in attention)."""
    per_norm = m.hidden_size * (2 if m.norm == "layer" else 1)
    return per_norm * (m.norms_per_layer * m.layers + 1 + (1 if m.embedding_norm else 0))


_COUNTED: dict[int, tuple[LlmModel, ParamCounts]] = {}
"""count_params by model object: the planner asks it thousands of times a search for the same
few models. Keyed by identity (the models are frozen, but their lists make them unhashable);
each entry keeps its model alive so an id is never reused while it is in here; bounded."""


def count_params(m: LlmModel) -> ParamCounts:
    """Split a model's parameters into embedding, attention, dense FFN, experts and the rest
    (remembered per model object: see _COUNTED)."""
    hit = _COUNTED.get(id(m))
    if hit is not None and hit[0] is m:
        return hit[1]
    if len(_COUNTED) >= 4096:
        _COUNTED.clear()
    counts = _count_params(m)
    _COUNTED[id(m)] = (m, counts)
    return counts


def _count_params(m: LlmModel) -> ParamCounts:
    h = m.hidden_size
    embedding = m.vocab_size * h + m.learned_positions * h
    lm_head = 0 if m.tied_embeddings else m.vocab_size * h + (m.vocab_size if m.lm_head_bias else 0)
    attention = attention_params_per_layer(m) * m.kv_layers
    ca = m.compressed_attention
    if ca:  # DeepSeek-V4: compressors, indexers and the hyper-connection maps beside attention
        kv_width = m.kv_heads * m.head_dim
        attention += ca.extra_params(h, kv_width) + ca.hyper_connection_params(h) * m.layers
    if m.global_attention:  # Gemma 4: the global layers' own shape
        g = m.global_attention.params(h, m.heads, m.qk_norm)
        attention += (g - attention_params_per_layer(m)) * m.global_layers
    moe = m.moe
    ffn_layers = m.layers if m.ffn_layers is None else m.ffn_layers
    dense_layers = max(ffn_layers - (moe.moe_layers if moe else 0), 0)
    ffn_dense = ffn_params(m, m.intermediate_size) * dense_layers
    experts = shared = router = 0
    share = 1.0
    if moe:
        experts = ffn_params(m, moe.expert_intermediate_size) * moe.experts * moe.moe_layers
        shared_size = moe.shared_expert_intermediate_size or moe.expert_intermediate_size
        shared = ffn_params(m, shared_size) * moe.shared_experts * moe.moe_layers
        router = h * moe.experts * moe.moe_layers
        share = moe.active_experts / moe.experts
    ssm = ssm_params_per_layer(m.ssm, h) * m.ssm.layers if m.ssm else 0
    lin = m.linear_attention
    linear_attention = lin.params_per_layer(h) * lin.layers if lin else 0
    vision = round(m.vision.params_b * 1e9) if m.vision else 0
    return ParamCounts(
        embedding,
        lm_head,
        attention,
        ffn_dense,
        experts,
        shared,
        router,
        share,
        ssm,
        norm_params(m),
        linear_attention,
        vision,
    )
