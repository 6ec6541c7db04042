"""KV-cache bytes, architecture-aware.

Per token and layer a standard attention layer stores K and V: 2 × kv_heads × head_dim elements
(GQA/MQA store fewer heads than they query). MLA (DeepSeek V2/V3) stores one compressed latent
of kv_lora_rank + qk_rope_head_dim elements when the engine keeps it compressed (vLLM, SGLang,
llama.cpp), and full per-head K and V when it does not (transformers). Sliding-window layers
(and Llama 4's chunked-attention layers) keep at most `window` tokens; which layers slide comes
from the model (Gemma 2 alternates, Gemma 3 has 5 local per global, gpt-oss lists them).
Mamba layers keep no KV at all but a fixed state per sequence: d_inner × state_size for the
SSM plus (conv_kernel − 1) columns of the conv input (Gu & Dao 2023, arXiv 2312.00752 §3.4),
held here in the KV dtype (vLLM's mamba_ssm_cache_dtype defaults to the model dtype).
Linear-attention layers of hybrids (Qwen3-Next/Qwen3.5 Gated DeltaNet, MiniMax-M1 lightning
attention) likewise keep a fixed state per sequence (schema_arch.LinearAttention) and no KV;
only the full-attention layers grow with the context. DeepSeek sparse attention (V3.2, GLM-5)
caches every token's MLA latent plus one indexer key (index_head_dim elements, held here in the
KV dtype: an upper bound where engines store it in FP8), but each query attends to at most
top_k tokens. Encoder-only models (BERT/XLM-R embedders and rerankers) keep no cache at all.
"""

from __future__ import annotations

import math

from gpuwise.catalog.schema import LlmModel


def kv_elements_per_token_layer(m: LlmModel, latent_mla: bool, tp: int = 1) -> float:
    """Elements one layer stores per token on one GPU (heads split by tensor parallelism)."""
    if m.mla:
        a = m.mla
        index_key = m.sparse_attention.index_head_dim if m.sparse_attention else 0
        if latent_mla:
            return float(a.kv_lora_rank + a.qk_rope_head_dim + index_key)
        per_head = a.qk_nope_head_dim + a.qk_rope_head_dim + a.v_head_dim
        return m.heads / tp * per_head + index_key
    kv_heads = max(1, math.ceil(m.kv_heads / tp))
    return 2.0 * kv_heads * m.head_dim


def kv_cache_bytes(
    m: LlmModel, context: int, batch: int, bytes_per_element: float, latent_mla: bool, tp: int = 1
) -> float:
    """Bytes of the KV cache for `batch` sequences of `context` tokens on one GPU (all layers),
    with the fixed state of Mamba and linear-attention layers."""
    if m.bidirectional:
        return 0.0
    per_layer_token = kv_elements_per_token_layer(m, latent_mla, tp) * bytes_per_element
    window_tokens = min(m.sliding_window or context, context)
    cache = per_layer_token * m.window_layers * window_tokens * batch
    if m.global_attention is not None:  # Gemma 4: global layers store their own K/V heads
        per_layer_token = m.global_attention.kv_elements_per_token(tp) * bytes_per_element
    cache += per_layer_token * m.global_layers * context * batch
    fixed = ssm_state_bytes(m, batch, bytes_per_element, tp)
    fixed += linear_state_bytes(m, batch, bytes_per_element, tp)
    return cache + fixed


def ssm_state_bytes(m: LlmModel, batch: int, bytes_per_element: float, tp: int = 1) -> float:
    """Bytes of the Mamba layers' recurrent state for `batch` sequences (independent of context;
    tensor parallelism splits d_inner across GPUs)."""
    if m.ssm is None:
        return 0.0
    return m.ssm.layers * m.ssm.state_elements() * bytes_per_element * batch / tp


def linear_state_bytes(m: LlmModel, batch: int, bytes_per_element: float, tp: int = 1) -> float:
    """Bytes of the linear-attention layers' recurrent state and conv window for `batch`
    sequences (independent of context; tensor parallelism splits the heads across GPUs)."""
    lin = m.linear_attention
    if lin is None:
        return 0.0
    return lin.layers * lin.state_elements() * bytes_per_element * batch / tp


def attended_keys(m: LlmModel, context: float) -> float:
    """Keys one new token attends to, summed over the layers that attend (the speed model's
    attention term): a sliding-window layer sees at most its window, a DSA layer at most its
    top_k, a linear-attention or Mamba layer none (its state update does not grow with the
    context), an encoder every token of its input."""
    window = m.window_layers
    window_keys = min(float(m.sliding_window or context), context)
    full_keys = context
    if m.sparse_attention is not None:
        full_keys = min(context, float(m.sparse_attention.top_k))
    return (m.kv_layers - window) * full_keys + window * window_keys


def indexer_keys(m: LlmModel, context: float) -> float:
    """Index keys a DSA model scores per new token, summed over layers (0 without DSA): the
    indexer reads every cached token, in index_heads × index_head_dim products per key."""
    if m.sparse_attention is None:
        return 0.0
    return m.kv_layers * context
