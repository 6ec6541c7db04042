"""Published engine start-up pools (tests/data/kv_pool_cases.toml) next to gpuwise's pool.

Shared by tests/estimate/test_kv_pool.py and benchmarks/kv_pool_accuracy.py so both compare the
same thing: the tokens the engine reported when it printed them (they set the concurrency), else
the GiB of its "Available KV cache memory" line, per GPU.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpuwise.catalog import Catalog
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.kv_pool import KvPool, kv_pool
from gpuwise.estimate.request import MemoryRequest
from gpuwise.estimate.speed_constants import SpeedConstants

GIB = 1024**3


@dataclass(frozen=True)
class KvPoolResult:
    """One published pool and gpuwise's."""

    id: str
    pool: KvPool
    reported_tokens: int | None
    reported_gib: float | None

    @property
    def predicted_gib(self) -> float:
        """gpuwise's pool on one GPU, GiB."""
        return self.pool.pool_bytes / GIB

    @property
    def measure(self) -> str:
        """Which figure the error compares: "tokens" when the engine printed them, else "GiB"."""
        return "tokens" if self.reported_tokens else "GiB"

    @property
    def error(self) -> float:
        """Signed relative error of gpuwise's pool against the reported one."""
        if self.reported_tokens:
            return (self.pool.tokens - self.reported_tokens) / self.reported_tokens
        assert self.reported_gib
        return (self.predicted_gib - self.reported_gib) / self.reported_gib


def kv_case_request(cat: Catalog, case: dict[str, Any]) -> MemoryRequest:
    """The serving request a case describes: one sequence of max-model-len tokens, the case's
    weights and KV dtype, tensor parallelism over its GPUs."""
    gpus = int(case["gpus"])
    return MemoryRequest(
        model=cat.model(case["model"]),
        quant=case["quant"],
        context=int(case["max_model_len"]),
        kv_dtype=case.get("kv_dtype"),
        gpus=gpus,
        strategy="tp" if gpus > 1 else "none",
        engine=case["engine"],
    )


def run_kv_case(
    cat: Catalog, c: MemoryConstants, case: dict[str, Any], sc: SpeedConstants | None = None
) -> KvPoolResult:
    """gpuwise's pool for a case at the share the engine used, its scheduler limits those of
    the engine's defaults on that card (data/speed.toml `engine_scheduler`) unless the case
    names them."""
    gpu = cat.gpu(case["gpu"])
    sched = (sc or SpeedConstants.from_catalog(cat)).scheduler(case["engine"], gpu)
    seqs = case.get("max_num_seqs") or (sched.max_running_requests if sched else None)
    tokens = case.get("max_num_batched_tokens") or (sched.max_batched_tokens if sched else None)
    pool = kv_pool(kv_case_request(cat, case), c, gpu, float(case["share"]), seqs, tokens)
    tokens = case.get("reported_tokens")
    gib = case.get("reported_kv_gib")
    return KvPoolResult(
        case["id"],
        pool,
        int(tokens) if tokens else None,
        float(gib) if gib else None,
    )
