"""The KV-cache pool a preallocating engine (vLLM, SGLang, TensorRT-LLM) builds on one GPU.

Such an engine takes a share of the card (`--gpu-memory-utilization`, `--mem-fraction-static`),
subtracts what it needs besides the cache and fills the rest with KV blocks; the pool's size in
tokens decides how many requests run at once (serving.running_requests, fit.max_batch). This
module states that pool with the memory model's own parts, so that it can be checked against the
figures engines print at start-up ("GPU KV cache size: N tokens", "KV Cache is allocated.
#tokens: N"; tests/data/kv_pool_cases.toml): the share of the card minus every part
estimate_memory counts for one sequence other than its cache, divided by the cache bytes of one
token. An engine that profiles its sampler at start-up (vLLM) also keeps back that run's peak
(estimate/profile_run.py) in place of the one sequence's activations and logits.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuwise.catalog.schema import Gpu
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.kv import kv_cache_bytes
from gpuwise.estimate.memory import estimate_memory, gpu_capacity_bytes
from gpuwise.estimate.profile_run import profile_run
from gpuwise.estimate.request import MemoryRequest
from gpuwise.estimate.resolve import resolve


@dataclass(frozen=True)
class KvPool:
    """One GPU's KV pool: its bytes, the bytes one token takes in it, and the rest of the card."""

    pool_bytes: float
    bytes_per_token: float
    share_bytes: float
    other_parts: dict[str, int]

    @property
    def tokens(self) -> int:
        """Tokens the pool holds (0 when the other parts leave no room)."""
        if self.pool_bytes <= 0 or self.bytes_per_token <= 0:
            return 0
        return int(self.pool_bytes // self.bytes_per_token)


def kv_bytes_per_token(req: MemoryRequest, c: MemoryConstants) -> float:
    """Cache bytes one more token of one sequence takes on one GPU (all layers, heads split by
    tensor parallelism, layers by pipeline stages): the step of kv_cache_bytes from one token to
    two, so a model's fixed recurrent state is left out. DeepSeek-V4's compressed history
    grows by a fraction of an entry per token, so there a token takes its share of one sequence
    at the request's context."""
    r = resolve(req, c)
    m, bpe, latent = r.req.model, r.kv.bytes_per_element, r.engine.kv_latent_for_mla
    if m.compressed_attention is not None:  # DeepSeek-V4: a token's share of a full sequence
        return kv_cache_bytes(m, r.context, 1, bpe, latent, r.tp) / r.context / r.layer_split
    step = kv_cache_bytes(m, 2, 1, bpe, latent, r.tp) - kv_cache_bytes(m, 1, 1, bpe, latent, r.tp)
    return step / r.layer_split


def kv_pool(
    req: MemoryRequest,
    c: MemoryConstants,
    gpu: Gpu,
    share: float | None = None,
    max_seqs: int | None = None,
    batched_tokens: int | None = None,
) -> KvPool:
    """The pool on one GPU for serving `req` (its context is the engine's max-model-len) when
    the engine takes `share` of the card (None: the engine's default preallocated share) and
    its scheduler admits `max_seqs` requests and `batched_tokens` tokens a step (what the
    profile run is sized by; None: no sampler reserve, the engine's catalog prefill chunk)."""
    one = req.with_(batch=1)
    r = resolve(one, c)
    fraction = share if share is not None else r.engine.preallocate_fraction
    if fraction is None:
        fraction = 1.0
    est = estimate_memory(one, c)
    others = {k: v for k, v in est.breakdown.items() if k != "kv_cache" and v}
    if r.engine.sampler_bytes_per_logit:
        run = profile_run(r, c, max_seqs, batched_tokens)
        others.pop("activations", None)
        others.pop("logits", None)
        others["profile_run"] = round(run.peak_bytes)
    if r.engine.preallocate_of_free:  # TensorRT-LLM: a share of what the rest leaves free
        share_bytes = sum(others.values()) + fraction * (
            gpu_capacity_bytes(gpu) - sum(others.values())
        )
    else:
        share_bytes = fraction * gpu_capacity_bytes(gpu)
    pool = share_bytes - sum(others.values())
    return KvPool(pool, kv_bytes_per_token(one, c), share_bytes, others)
