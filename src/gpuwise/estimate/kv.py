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
top_k tokens. DeepSeek-V4 (compressed_cache_bytes) keeps a 128-token window in every layer and
a history compressed 4x (with index keys) or 128x in most. Encoder-only models (BERT/XLM-R
embedders and rerankers) keep no cache at all.
"""

from __future__ import annotations

import math

from gpuwise.catalog.schema import LlmModel


def kv_elements_per_token_layer(m: LlmModel, latent_mla: bool, tp: int = 1) -> float:
    """Elements one layer stores per token on one GPU (heads split by tensor parallelism)."""
    if m.compressed_attention is not None:  # one shared K=V vector, whole on every GPU
        return float(m.kv_heads * m.head_dim)
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
    if m.compressed_attention is not None:
        return compressed_cache_bytes(m, context, batch, bytes_per_element)
    per_layer_token = kv_elements_per_token_layer(m, latent_mla, tp) * bytes_per_element
    window_tokens = min(m.sliding_window or context, context)
    cache = per_layer_token * m.window_layers * window_tokens * batch
    if m.global_attention is not None:  # Gemma 4: global layers store their own K/V heads
        per_layer_token = m.global_attention.kv_elements_per_token(tp) * bytes_per_element
    cache += per_layer_token * m.global_layers * context * batch
    fixed = ssm_state_bytes(m, batch, bytes_per_element, tp)
    fixed += linear_state_bytes(m, batch, bytes_per_element, tp)
    return cache + fixed


def compressed_cache_bytes(
    m: LlmModel, context: int, batch: int, bytes_per_element: float
) -> float:
    """DeepSeek-V4's cache (schema_arch.CompressedAttention): every layer's window of one
    shared K=V vector per token, a CSA layer's entry per `csa_ratio` tokens with its index
    key, an HCA layer's entry per `hca_ratio` tokens. The single KV head is whole on every
    GPU under tensor parallelism (it cannot be split), so `tp` does not divide it."""
    ca = m.compressed_attention
    assert ca is not None
    width = m.kv_heads * m.head_dim
    window = min(m.sliding_window or context, context)
    csa_entries, hca_entries = ca.entries(context)
    elements = float(m.layers * window * width)
    elements += ca.csa_layers * csa_entries * (width + ca.index_head_dim)
    elements += ca.hca_layers * hca_entries * width
    return elements * bytes_per_element * batch


def kv_read_bytes(
    m: LlmModel, context: int, batch: int, bytes_per_element: float, latent_mla: bool, tp: int = 1
) -> float:
    """Bytes of the cache one decode step reads for `batch` sequences at `context` on one GPU.
    A sparse model reads every index key but only the top_k entries its indexer picks
    (DeepSeek V3.2's DSA; DeepSeek-V4's CSA layers, whose HCA layers read all their entries and
    every layer its window); every other model reads its whole cache (kv_cache_bytes). Blind
    w46-01: V4-Flash at 120k tokens read 7.8 GiB a step where its kernels read about 2."""
    ca, dsa = m.compressed_attention, m.sparse_attention
    if ca is None and (dsa is None or m.mla is None):
        return kv_cache_bytes(m, context, batch, bytes_per_element, latent_mla, tp)
    if ca is not None:
        width = m.kv_heads * m.head_dim
        window = min(m.sliding_window or context, context)
        csa_entries, hca_entries = ca.entries(context)
        elements = float(m.layers * window * width)
        elements += ca.csa_layers * (
            csa_entries * ca.index_head_dim + min(csa_entries, ca.top_k) * width
        )
        elements += ca.hca_layers * hca_entries * width
        return elements * bytes_per_element * batch
    assert dsa is not None
    latent = kv_elements_per_token_layer(m, latent_mla, tp) - dsa.index_head_dim
    picked = min(context, dsa.top_k)
    elements = m.kv_layers * (context * dsa.index_head_dim + picked * latent)
    return elements * bytes_per_element * batch


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
    window_keys = min(float(m.sliding_window or context), context)
    ca = m.compressed_attention
    if ca is not None:  # every layer's window, CSA's top-k entries, HCA's every entry
        csa_entries, hca_entries = ca.entries(context)
        csa_keys = min(float(csa_entries), float(ca.top_k))
        return m.layers * window_keys + ca.csa_layers * csa_keys + ca.hca_layers * hca_entries
    window = m.window_layers
    full_keys = context
    if m.sparse_attention is not None:
        full_keys = min(context, float(m.sparse_attention.top_k))
    return (m.kv_layers - window) * full_keys + window * window_keys


def indexer_keys(m: LlmModel, context: float) -> float:
    """Index keys a DSA model scores per new token, summed over layers (0 without DSA): the
    indexer reads every cached token, in index_heads × index_head_dim products per key."""
    ca = m.compressed_attention
    if ca is not None:  # the CSA layers' indexers score every compressed entry
        return ca.csa_layers * float(ca.entries(context)[0])
    if m.sparse_attention is None:
        return 0.0
    return m.kv_layers * context
