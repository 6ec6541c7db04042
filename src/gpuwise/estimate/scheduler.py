"""How many requests a serving engine runs at once, and what the rest do: queue.

A continuous-batching engine (vLLM, SGLang, TensorRT-LLM's in-flight batching) admits a waiting
request only while three limits allow it: its scheduler's request cap (vLLM's max-num-seqs:
1024 on cards of 70 GiB or more that are not A100s, else 256; data/speed.toml
`engine_scheduler`), its step token budget (max-num-batched-tokens: every running request's
decode token counts against it), and free blocks in its KV pool. The pool is what the engine's
share of the card leaves after the weights and its start-up profile run (estimate/kv_pool.py,
estimate/profile_run.py); a running request holds its prompt and the tokens generated so far,
on average prompt + half the output once requests start and finish at staggered times, rounded
up to the pool's blocks. Requests beyond the running batch wait in the queue: they add nothing
to throughput, and each one's latency grows by the time it waited.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

from gpuwise.catalog.schema import Gpu
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.kv_pool import kv_pool
from gpuwise.estimate.request import MemoryRequest
from gpuwise.estimate.speed_constants import SpeedConstants

BLOCK_TOKENS = 16
"""vLLM's and SGLang's default KV block (page) size: a request holds whole blocks."""


@dataclass(frozen=True)
class RunningBatch:
    """The requests an engine runs at once out of those sent, and the limit that set it."""

    running: int
    queued: int
    limit: str
    """"concurrency" (all run), "max_num_seqs", "batched_tokens" or "kv_pool"."""


def tokens_held(prompt: int, gen: int) -> int:
    """KV tokens a running request holds on average: its prompt and half its output, in
    whole blocks."""
    return math.ceil((prompt + gen / 2) / BLOCK_TOKENS) * BLOCK_TOKENS


def running_batch(
    req: MemoryRequest,
    mc: MemoryConstants,
    sc: SpeedConstants,
    gpu: Gpu,
    sent: int,
    gen: int,
    built: dt.date | None = None,
) -> RunningBatch:
    """The running batch out of `sent` concurrent requests of `req.prompt_tokens` prompt and
    `gen` output tokens, for the engine build of `built` (None: current) on `gpu`."""
    limits = {"concurrency": max(1, sent)}
    sched = sc.scheduler(req.engine or "", gpu, built)
    seqs = sched.max_running_requests if sched else None
    tokens = sched.max_batched_tokens if sched else None
    if seqs:
        limits["max_num_seqs"] = seqs
    if tokens:
        limits["batched_tokens"] = tokens
    pool = kv_pool(req.with_(batch=1), mc, gpu, None, seqs, tokens)
    if pool.bytes_per_token > 0:
        prompt = req.prompt_tokens or max(1, (req.context or 1) - gen)
        limits["kv_pool"] = max(1, pool.tokens // tokens_held(prompt, gen))
    limit = min(limits, key=lambda k: limits[k])
    running = limits[limit]
    return RunningBatch(running, max(0, sent - running), limit)
