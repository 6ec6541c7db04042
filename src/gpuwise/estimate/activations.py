"""Activation and logits memory.

Training follows Korthikanti et al. 2022 (arXiv:2205.05198): a layer saves a fixed number of
hidden-sized and FFN-sized tensors per token for the backward pass (their 34·sbh for a 4h MLP),
plus attention scores (their 5·as²b) unless a fused attention kernel recomputes them. With
gradient checkpointing only each layer's input is kept, and one layer's activations are
rebuilt at a time. The multiples are catalog data (activation_model in data/memory.toml).
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuwise.catalog.schema import LlmModel
from gpuwise.catalog.schema_memory import ActivationModel


def ffn_width(m: LlmModel) -> float:
    """FFN width a token passes through, averaged over layers (MoE: routed + shared experts)."""
    if not m.moe:
        return float(m.intermediate_size)
    moe = m.moe
    shared = (
        moe.shared_expert_intermediate_size or moe.expert_intermediate_size
    ) * moe.shared_experts
    per_moe_layer = moe.expert_intermediate_size * moe.active_experts + shared
    dense_layers = m.layers - moe.moe_layers
    return (dense_layers * m.intermediate_size + moe.moe_layers * per_moe_layer) / m.layers


def _attention_widths(m: LlmModel, tp: int) -> float:
    """q and attention-output widths plus k and v, per GPU."""
    q = m.heads * m.head_dim
    kv = m.kv_heads * m.head_dim
    if m.mla:
        q = m.heads * (m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim)
        kv = m.heads * (m.mla.qk_nope_head_dim + m.mla.v_head_dim) // 2
    return (2 * q + 2 * kv) / tp


@dataclass(frozen=True)
class SavedInputs:
    """Which linear-layer inputs autograd keeps: those whose weight trains (or carries an adapter).

    PyTorch saves a Linear's input only when its weight needs a gradient; bitsandbytes 4-bit
    layers save their input whenever the input needs a gradient, so a QLoRA base behaves like a
    trained one here.
    """

    attention_in: bool = True
    mlp_in: bool = True
    down_in: bool = True


def train_activation_bytes(
    m: LlmModel,
    tokens: int,
    seq_len: int,
    act_bytes: float,
    c: ActivationModel,
    checkpointing: bool,
    eager: bool,
    tp: int = 1,
    saved: SavedInputs | None = None,
    fp32_norms: bool = True,
) -> float:
    """Bytes saved for backward on one GPU for a micro-batch of `tokens` tokens.

    Per token and layer: both norms' inputs (in fp32 where the norm upcasts, as HF's RMSNorm
    does), q/k/v and the attention output (kept by the
    attention kernel), the FFN's gate, up and activated gate, and the inputs of linear layers
    that train (see SavedInputs).
    """
    s = saved or SavedInputs()
    per_norm = c.norm_fp32_multiples if fp32_norms else c.norm_input_multiples
    hidden = per_norm * 2 + int(s.attention_in) + int(s.mlp_in)
    ffn = c.ffn_always_multiples + int(s.down_in)
    per_token = act_bytes * (
        hidden * m.hidden_size + _attention_widths(m, tp) + ffn * ffn_width(m) / tp
    )
    if eager:
        per_token += m.heads / tp * seq_len * c.eager_score_bytes
    one_layer = per_token * tokens
    if checkpointing:
        return m.layers * tokens * m.hidden_size * act_bytes + one_layer
    return m.layers * one_layer


def prefill_activation_bytes(
    m: LlmModel, tokens: int, prompt_len: int, c: ActivationModel, eager: bool, tp: int = 1
) -> float:
    """Transient peak of a no-grad forward pass over `tokens` tokens (16-bit activations)."""
    per_token = 2 * (
        c.prefill_ffn_multiples * ffn_width(m) / tp + c.prefill_hidden_multiples * m.hidden_size
    )
    scores = tokens * prompt_len * m.heads / tp * 2 if eager else 0.0
    return per_token * tokens + scores


def train_logits_bytes(m: LlmModel, tokens: int, c: ActivationModel, chunked: bool) -> float:
    """Logits and their fp32 loss copies: tokens × vocab × bytes (chunked: fp32 part / chunks)."""
    if chunked:
        return tokens * m.vocab_size * (2 + (c.logits_train_bytes - 2) / c.logits_chunks)
    return tokens * m.vocab_size * c.logits_train_bytes
