"""How many requests a server runs at once when more are waiting than it takes.

A saturated benchmark (every request sent at once, as `vllm bench serve` does without a rate)
runs as many requests as the engine's scheduler allows (vLLM: 1024 on cards of 70 GiB or more
that are not A100s, else 256) or as many as the KV cache holds, whichever is fewer; the rest
queue. Throughput is set by that running batch, not by the number sent.
"""

from __future__ import annotations

import datetime as dt

from gpuwise.catalog.schema import Gpu
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.fit import max_batch
from gpuwise.estimate.request import MemoryRequest
from gpuwise.estimate.speed_constants import SpeedConstants


def running_requests(
    req: MemoryRequest,
    mc: MemoryConstants,
    sc: SpeedConstants,
    gpu: Gpu,
    waiting: int,
    built: dt.date | None = None,
) -> int:
    """Requests running at once out of `waiting`: the scheduler's cap (of the engine build
    `built`, None: current) and the KV cache's (`req.context` tokens each, the engine's
    preallocated share of memory), at least one."""
    cap = waiting
    sched = sc.scheduler(req.engine or "", gpu, built)
    if sched is not None:
        cap = min(cap, sched.max_running_requests)
    fits = max_batch(req.with_(batch=1), mc, gpu)
    return max(1, min(cap, fits or 1))
