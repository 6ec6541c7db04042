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
"""

from __future__ import annotations

import math

from gpuwise.catalog.schema import LlmModel


def kv_elements_per_token_layer(m: LlmModel, latent_mla: bool, tp: int = 1) -> float:
    """Elements one layer stores per token on one GPU (heads split by tensor parallelism)."""
    if m.mla:
        a = m.mla
        if latent_mla:
            return float(a.kv_lora_rank + a.qk_rope_head_dim)
        return m.heads / tp * (a.qk_nope_head_dim + a.qk_rope_head_dim + a.v_head_dim)
    kv_heads = max(1, math.ceil(m.kv_heads / tp))
    return 2.0 * kv_heads * m.head_dim


def kv_cache_bytes(
    m: LlmModel, context: int, batch: int, bytes_per_element: float, latent_mla: bool, tp: int = 1
) -> float:
    """Bytes of the KV cache for `batch` sequences of `context` tokens on one GPU (all layers)."""
    per_layer_token = kv_elements_per_token_layer(m, latent_mla, tp) * bytes_per_element
    window_layers = m.window_layers
    global_layers = m.kv_layers - window_layers
    window_tokens = min(m.sliding_window or context, context)
    tokens = global_layers * context + window_layers * window_tokens
    return per_layer_token * tokens * batch + ssm_state_bytes(m, batch, bytes_per_element, tp)


def ssm_state_bytes(m: LlmModel, batch: int, bytes_per_element: float, tp: int = 1) -> float:
    """Bytes of the Mamba layers' recurrent state for `batch` sequences (independent of context;
    tensor parallelism splits d_inner across GPUs)."""
    if m.ssm is None:
        return 0.0
    return m.ssm.layers * m.ssm.state_elements() * bytes_per_element * batch / tp
