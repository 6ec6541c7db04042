"""How many requests a server runs at once when more are waiting than it takes.

A saturated benchmark (every request sent at once, as `vllm bench serve` does without a rate)
runs as many requests as the engine's scheduler allows (vLLM: 1024 on cards of 70 GiB or more
that are not A100s, else 256) or as many as the KV pool holds, whichever is fewer; the rest
queue. Throughput is set by that running batch, not by the number sent (estimate/scheduler.py).
"""

from __future__ import annotations

import datetime as dt

from gpuwise.catalog.schema import Gpu
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.request import MemoryRequest
from gpuwise.estimate.scheduler import running_batch
from gpuwise.estimate.speed_constants import SpeedConstants


def running_requests(
    req: MemoryRequest,
    mc: MemoryConstants,
    sc: SpeedConstants,
    gpu: Gpu,
    waiting: int,
    built: dt.date | None = None,
    gen: int = 1,
) -> int:
    """Requests running at once out of `waiting` of `req.prompt_tokens` + `gen` tokens: the
    scheduler's caps (of the engine build `built`, None: current) and the KV pool's, at least
    one."""
    return running_batch(req, mc, sc, gpu, waiting, gen, built).running
