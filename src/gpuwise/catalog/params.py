"""Parameter counts from an architecture's shapes.

Used to check catalog entries (the stated `params_b` must match the shapes) and to describe
models read from a local config.json. Counts the weight matrices of a decoder-only transformer
with gated FFNs (SwiGLU / GeGLU: gate, up and down projections, as Llama, Qwen, Mistral, Gemma,
DeepSeek and gpt-oss use) or plain two-matrix MLPs (MPT, GPT-NeoX: gated_ffn = false); norms
and biases are under 0.1% and left out.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuwise.catalog.schema import LlmModel


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

    @property
    def total(self) -> int:
        """Every weight (all experts)."""
        return (
            self.embedding
            + self.lm_head
            + self.attention
            + self.ffn_dense
            + self.ffn_experts
            + self.ffn_shared
            + self.router
        )

    @property
    def active(self) -> int:
        """Weights used per token: experts scaled by the routed share."""
        experts = round(self.ffn_experts * self.active_experts_share)
        return self.total - self.ffn_experts + experts


def attention_params_per_layer(m: LlmModel) -> int:
    """q, k, v, o projections; MLA compresses k/v (and q) through low-rank latents."""
    h = m.hidden_size
    if m.mla:
        a = m.mla
        qk = a.qk_nope_head_dim + a.qk_rope_head_dim
        q = h * a.q_lora_rank + a.q_lora_rank * m.heads * qk if a.q_lora_rank else h * m.heads * qk
        kv = h * (a.kv_lora_rank + a.qk_rope_head_dim)
        kv += a.kv_lora_rank * m.heads * (a.qk_nope_head_dim + a.v_head_dim)
        return q + kv + m.heads * a.v_head_dim * h
    q_out = m.heads * m.head_dim
    kv_out = 2 * m.kv_heads * m.head_dim
    return h * q_out + h * kv_out + q_out * h


def count_params(m: LlmModel) -> ParamCounts:
    """Split a model's parameters into embedding, attention, dense FFN and experts."""
    h = m.hidden_size
    embedding = m.vocab_size * h
    lm_head = 0 if m.tied_embeddings else m.vocab_size * h
    attention = attention_params_per_layer(m) * m.layers
    moe = m.moe
    dense_layers = m.layers - (moe.moe_layers if moe else 0)
    matrices = 3 if m.gated_ffn else 2  # gate, up, down (SwiGLU/GeGLU) or up, down (GeLU MLP)
    ffn_dense = matrices * h * m.intermediate_size * dense_layers
    experts = shared = router = 0
    share = 1.0
    if moe:
        experts = 3 * h * moe.expert_intermediate_size * moe.experts * moe.moe_layers
        shared_size = moe.shared_expert_intermediate_size or moe.expert_intermediate_size
        shared = 3 * h * shared_size * moe.shared_experts * moe.moe_layers
        router = h * moe.experts * moe.moe_layers
        share = moe.active_experts / moe.experts
    return ParamCounts(embedding, lm_head, attention, ffn_dense, experts, shared, router, share)
