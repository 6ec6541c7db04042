"""Throughput of an embedding or reranking model: one forward pass per input, no decode.

An embedder (bge-m3, Qwen3-Embedding) or a reranker (bge-reranker, Qwen3-Reranker) reads its
input once and returns a pooled vector or a relevance score: there is no generated token,
so no decode step, no reading-speed floor and no KV cache kept between steps. Its rate is
the prefill rate of a batch of inputs (the engine packs the requests in flight into one
pass, as TEI and vLLM's pooling runner do), in input tokens per second; documents per second
are that divided by the tokens of one document.
"""

from __future__ import annotations

import dataclasses

from gpuwise.catalog.schema import LlmModel
from gpuwise.estimate.resolve import Resolved
from gpuwise.estimate.speed import (
    SpeedEstimate,
    SpeedInputs,
    collective_bps,
    prefill_time,
    rates,
    scheduled,
)
from gpuwise.estimate.speed_band import bands_of
from gpuwise.estimate.speed_constants import SpeedConstants

POOLING_TASKS = ("embed", "rerank")
"""Model tasks served as one pass per input (catalog LlmModel.task)."""


def pools(model: LlmModel) -> bool:
    """The model returns vectors or scores, not text: it has no decode phase."""
    return model.task in POOLING_TASKS


def pooling_speed(r: Resolved, sc: SpeedConstants, s: SpeedInputs) -> SpeedEstimate:
    """Input tokens/s with `concurrency` inputs of `prompt_tokens` in one batched pass; the
    batch's time is also each request's latency (`time_to_first_token_s`)."""
    r = scheduled(r, sc, s.gpu)
    rt = rates(r, sc, s.gpu, s.backend, s.built, s.enforce_eager)
    prompt = max(1, r.prompt_tokens or r.context)
    batch = s.concurrency or 1
    seconds, bound = prefill_time(r, rt, prompt, batch, collective_bps(s.gpu, sc, r.req.gpus))
    out = SpeedEstimate(
        bound=bound,
        prefill_tokens_per_s=batch * prompt / seconds,
        time_to_first_token_s=seconds,
        factors=rt.factors,
    )
    return dataclasses.replace(out, band=bands_of(out, sc, ("prefill",), r.engine.id, s.gpu))
