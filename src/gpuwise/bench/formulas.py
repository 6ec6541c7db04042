"""The arithmetic of the bench figures (pure; every formula cites where it comes from).

- Matmul: an (m×k)·(k×n) product is 2·m·n·k floating-point operations (mamf-finder,
  stas00/ml-engineering compute/accelerator/benchmarks/mamf-finder.py @744d01e, read 2026-12-02).
- Copy bandwidth: `b.copy_(a)` reads and writes N bytes, so it moves 2·N (the convention of
  ml-engineering's memory benchmarks; nvbandwidth counts N — we say which in the output).
- All-reduce: algbw = S / t and busbw = algbw × 2(n−1)/n (nccl-tests doc/PERFORMANCE.md,
  https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md, read 2026-12-02).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

BUS_FACTORS: dict[str, Callable[[int], float]] = {
    "all_reduce": lambda n: 2 * (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n,
    "all_to_all": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0,
    "reduce": lambda n: 1.0,
}
"""nccl-tests PERFORMANCE.md: the factor that turns algorithm bandwidth into bus bandwidth."""


def matmul_flops(m: int, n: int, k: int) -> float:
    """Floating-point operations of one (m×k)·(k×n) matrix product: 2·m·n·k."""
    return 2.0 * m * n * k


def copy_bytes(n_bytes: int) -> float:
    """Bytes a device-to-device copy of `n_bytes` moves: read once, written once."""
    return 2.0 * n_bytes


def bus_factor(collective: str, ranks: int) -> float:
    """nccl-tests' bus-bandwidth factor of a collective over `ranks` ranks (1 rank: no bus)."""
    if ranks < 1:
        raise ValueError(ranks)
    return float(BUS_FACTORS[collective](ranks))


def algbw(size_bytes: float, seconds: float) -> float:
    """Algorithm bandwidth in bytes per second: S / t."""
    return size_bytes / seconds


def busbw(size_bytes: float, seconds: float, ranks: int, collective: str = "all_reduce") -> float:
    """Bus bandwidth in bytes per second: algbw × the collective's factor (nccl-tests)."""
    return algbw(size_bytes, seconds) * bus_factor(collective, ranks)


@dataclass(frozen=True)
class Spread:
    """Timings of repeated runs summarised: the best, the median and the spread (max/min − 1)."""

    best_s: float
    median_s: float
    spread: float
    runs: int


def spread_of(times_s: Sequence[float]) -> Spread:
    """Best and median of repeated timings; spread = slowest ÷ fastest − 1 (0 = steady)."""
    if not times_s or min(times_s) <= 0:
        raise ValueError("timings must be positive")
    best = min(times_s)
    return Spread(best, statistics.median(times_s), max(times_s) / best - 1, len(times_s))


def rate(amount: float, seconds: float) -> float:
    """Amount per second (FLOPs/s, bytes/s)."""
    return amount / seconds


def layer_weight_count(hidden: int, intermediate: int, heads: int, kv_heads: int) -> int:
    """Weights of one dense decoder layer: Q and O (h×h), K and V (h × kv_heads·head_dim) and a
    gated MLP's three h×i matrices (the Llama layout; norms are negligible)."""
    head_dim = hidden // heads
    attention = 2 * hidden * hidden + 2 * hidden * kv_heads * head_dim
    return attention + 3 * hidden * intermediate
