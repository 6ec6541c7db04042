"""Models served beside the main one on the same devices: their memory, reserved.

A RAG app runs its chat model beside an embedder and a reranker, often on the same GPUs (a
text-embeddings server or a second engine process next to vLLM). Each companion is estimated
as what it is, one engine process serving one request at a time of `COMPANION_TOKENS` tokens
(estimate.memory: weights in its native format, its runtime, its activations), and that much
is reserved on every device the main model uses: a tensor-parallel engine sets one memory
share for all its ranks, so the device that hosts the companions limits every rank. Where
the scenario states a companion's load (input tokens a second), the device time it takes at
its own batched rate on the card is taken from the main model's throughput (busy_share); a
companion without a load is not counted (the plan's note says so). Blind w45-03: a search
API's reranker read 3.7M tokens a second beside a small embedder, and the plan sized the
embedder alone. Pure: catalog models in, bytes and shares out.
"""

from __future__ import annotations

from typing import Any

from gpuwise.advise.scenario import Companion
from gpuwise.catalog import Catalog
from gpuwise.catalog.reading import read_model_name
from gpuwise.catalog.schema import Gpu, LlmModel
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.memory import estimate_memory
from gpuwise.estimate.pooling import pooling_speed
from gpuwise.estimate.request import MemoryRequest
from gpuwise.estimate.resolve import resolve
from gpuwise.estimate.speed import SpeedInputs
from gpuwise.estimate.speed_constants import SpeedConstants

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


COMPANION_BATCH = 32
"""Inputs a companion's server packs into one pass at load (Text Embeddings Inference's
default max_batch_tokens of 16,384 is 32 inputs of COMPANION_TOKENS)."""

CompanionLoad = tuple[LlmModel, float]
"""A companion model and the input tokens a second it must read."""


def companion_loads(cat: Catalog, companions: list[Companion]) -> tuple[CompanionLoad, ...]:
    """The companions whose load the scenario states, as catalog models."""
    return tuple(
        (read_model_name(cat, c.model).model, c.tokens_per_s) for c in companions if c.tokens_per_s
    )


def companion_rate(model: LlmModel, gpu: Gpu, mc: MemoryConstants, sc: SpeedConstants) -> float:
    """Input tokens a second one device reads for the companion, batched as its server does
    (one pass per input: estimate.pooling); 0 where the card's speed is unknown."""
    req = MemoryRequest(
        model=model,
        batch=COMPANION_BATCH,
        context=COMPANION_TOKENS,
        prompt_tokens=COMPANION_TOKENS,
        engine="vllm",
    )
    sp = pooling_speed(resolve(req, mc), sc, SpeedInputs(gpu=gpu, concurrency=COMPANION_BATCH))
    return sp.prefill_tokens_per_s or 0.0


def busy_share(
    loads: tuple[CompanionLoad, ...],
    gpu: Gpu,
    devices: int,
    mc: MemoryConstants,
    sc: SpeedConstants,
    memo: dict[tuple[object, ...], Any] | None = None,
) -> float:
    """The share of the devices' time the companions take at their loads, spread over every
    device (each hosts a copy of them); 1 or more: they alone fill the devices. `memo` (the
    search's) keeps each companion's rate per card: the search sizes a card many times."""
    share = 0.0
    for model, load in loads:
        key = ("companion-rate", model.id, gpu.id)
        rate = memo.get(key) if memo is not None else None
        if rate is None:
            rate = companion_rate(model, gpu, mc, sc)
            if memo is not None:
                memo[key] = rate
        share += load / (rate * devices) if rate > 0 else float("inf")
    return share
