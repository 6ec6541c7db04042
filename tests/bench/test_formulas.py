"""The bench arithmetic against published outputs (nccl-tests rows, a Llama layer's weights)."""

from __future__ import annotations

import pytest

from gpuwise.bench import formulas as f

# Rows printed by nccl-tests' all_reduce_perf, as posted publicly (read 2026-12-02):
# (size bytes, time µs, algbw GB/s, busbw GB/s, ranks)
NCCL_ROWS = [
    # 8 ranks: https://github.com/kvcache-ai/Mooncake/pull/3484 (out-of-place columns)
    (16777216, 121.33, 138.28, 242.00, 8),
    (33554432, 195.40, 171.72, 300.51, 8),
    (4194304, 53.24, 78.78, 137.87, 8),
    # 2 ranks (2 × GB10): https://github.com/NVIDIA/dgx-spark-playbooks/pull/103
    (8192, 35.15, 0.23, 0.23, 2),
    (65536, 67.93, 0.96, 0.96, 2),
]


@pytest.mark.parametrize(("size", "time_us", "alg", "bus", "ranks"), NCCL_ROWS)
def test_busbw_matches_nccl_tests_output(
    size: int, time_us: float, alg: float, bus: float, ranks: int
) -> None:
    seconds = time_us * 1e-6  # printed to 0.01 µs: allow that rounding (≤ 0.1 %)
    assert f.algbw(size, seconds) / 1e9 == pytest.approx(alg, rel=1e-3, abs=0.01)
    assert f.busbw(size, seconds, ranks) / 1e9 == pytest.approx(bus, rel=1e-3, abs=0.01)


def test_bus_factors_of_performance_md() -> None:
    assert f.bus_factor("all_reduce", 8) == pytest.approx(1.75)
    assert f.bus_factor("all_reduce", 1) == 0.0  # one rank: nothing crosses a bus
    assert f.bus_factor("all_gather", 4) == pytest.approx(0.75)
    assert f.bus_factor("broadcast", 16) == 1.0
    with pytest.raises(ValueError):
        f.bus_factor("all_reduce", 0)


def test_matmul_flops_and_copy_bytes() -> None:
    assert f.matmul_flops(4096, 4096, 4096) == 2 * 4096**3
    assert f.copy_bytes(1024) == 2048


def test_llama_8b_layer_weights() -> None:
    # Llama 3.1 8B: hidden 4096, intermediate 14336, 32 heads, 8 KV heads → 218,103,808
    assert f.layer_weight_count(4096, 14336, 32, 8) == 218_103_808


def test_spread() -> None:
    s = f.spread_of([2.0, 1.0, 1.5])
    assert (s.best_s, s.median_s, s.spread, s.runs) == (1.0, 1.5, 1.0, 3)
    with pytest.raises(ValueError):
        f.spread_of([])
