"""Models served beside the main one on the same devices: their memory, reserved.

A RAG app runs its chat model beside an embedder and a reranker, often on the same GPUs (a
text-embeddings server or a second engine process next to vLLM). Each companion is estimated
as what it is, one engine process serving one request at a time of `COMPANION_TOKENS` tokens
(estimate.memory: weights in its native format, its runtime, its activations), and that much
is reserved on every device the main model uses: a tensor-parallel engine sets one memory
share for all its ranks, so the device that hosts the companions limits every rank. Their
compute is not counted (the plan's note says so): at RAG loads it is a small share beside the
chat model's prefill and decode, but it is not nothing. Pure: catalog models in, bytes out.
"""

from __future__ import annotations

from gpuwise.catalog import Catalog
from gpuwise.catalog.reading import read_model_name
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.memory import estimate_memory
from gpuwise.estimate.request import MemoryRequest

COMPANION_TOKENS = 512
"""Tokens of the request a companion is sized for: an embedder's or reranker's input limit in
the common models (bge, Qwen3-Embedding run longer, at more memory, when asked)."""


def companion_bytes(cat: Catalog, names: list[str], mc: MemoryConstants) -> int:
    """Device memory the companions take together (0 without any); an unknown name is the
    catalog's one-line error naming the closest models."""
    total = 0
    for name in names:
        model = read_model_name(cat, name).model
        req = MemoryRequest(model=model, batch=1, context=COMPANION_TOKENS, engine="vllm")
        total += estimate_memory(req, mc).device_total_bytes
    return total
