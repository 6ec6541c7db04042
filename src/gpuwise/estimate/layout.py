"""Where an MLA (or DeepSeek-V4) model's attention runs when it is served on several GPUs:
tensor parallel, or data parallel ("DP attention").

An MLA layer (DeepSeek V2/V3/V3.2, Kimi K2, GLM-5) caches one compressed latent per token that
every tensor-parallel rank needs whole, so under plain tensor parallelism each GPU holds the KV
cache of every sequence. Engines that serve these models at scale instead give each GPU its own
share of the sequences for attention (SGLang `--enable-dp-attention`, vLLM
`--data-parallel-size` with `--enable-expert-parallel`): the KV cache of a GPU is its share of
the sequences, at the price of a whole copy of the attention weights on every GPU, while the
other weights stay split. Left to choose (strategy "none"), the layout that needs fewer bytes
per GPU is taken: DP attention when the latent KV of all sequences outweighs the attention
weights, which is also the layout that reads fewer bytes per decode step (both are read once
per step). The user's `--strategy tp` or `dp-attention` is kept as given.
"""

from __future__ import annotations

import math

from gpuwise.catalog.schema import LlmModel
from gpuwise.catalog.schema_memory import Engine, WeightFormat
from gpuwise.estimate.kv import kv_cache_bytes
from gpuwise.estimate.weights import param_split

DP_ATTENTION = "dp-attention"


def attention_weight_bytes(m: LlmModel, fmt: WeightFormat) -> float:
    """Bytes of the attention projections (all layers) in the weight format: the attention
    share of the linear parameters (catalog/params.py) at the format's bits per weight (16 bits
    where the format quantizes only the experts)."""
    _, _, linear, counts = param_split(m)
    rest = counts.total - counts.embedding - counts.lm_head
    if rest <= 0:
        return 0.0
    bits = fmt.bits_per_weight
    if fmt.quantizes == "experts":  # the rest stays 16-bit, or as the checkpoint ships it
        shipped = m.hint_rest_bits if fmt.id == m.weight_format_hint else None
        bits = shipped or 16.0
    return counts.attention * linear / rest * bits / 8


def can_dp_attention(m: LlmModel, engine: Engine, gpus: int) -> bool:
    """A model whose cache every tensor-parallel rank needs whole (an MLA latent kept as such,
    DeepSeek-V4's single shared K=V head), on an engine that runs DP attention, on 2+ GPUs
    (blind w46-01: V4-Flash's published 4 x H200 recipe is DP attention with expert
    parallelism, refused as MLA-only)."""
    whole = (m.mla is not None and engine.kv_latent_for_mla) or m.compressed_attention is not None
    return gpus > 1 and whole and engine.mla_dp_attention


def prefers_dp_attention(
    m: LlmModel, engine: Engine, fmt: WeightFormat, kv_bytes_per_element: float,
    context: int, batch: int, gpus: int,
) -> bool:  # fmt: skip
    """Whether DP attention needs fewer bytes per GPU than tensor-parallel attention: the
    latent KV that every GPU would hold beyond its share outweighs the attention weights every
    GPU would hold beyond its share (the same (1 − 1/gpus) on both sides)."""
    if not can_dp_attention(m, engine, gpus):
        return False
    kv = kv_cache_bytes(m, context, batch, kv_bytes_per_element, True, gpus)
    return kv > attention_weight_bytes(m, fmt)


def sequences_per_gpu(strategy: str, gpus: int, batch: int) -> int:
    """Sequences whose KV cache one GPU holds and reads: its share under DP attention, else all."""
    return math.ceil(batch / gpus) if strategy == DP_ATTENTION else batch


def replicated_attention_bytes(strategy: str, gpus: int, m: LlmModel, fmt: WeightFormat) -> float:
    """Attention weight bytes one GPU holds beyond its 1/gpus share (DP attention keeps them
    whole on every GPU)."""
    if strategy != DP_ATTENTION or gpus < 2:
        return 0.0
    return attention_weight_bytes(m, fmt) * (1 - 1 / gpus)
