"""What a bench run measures and how big: full, `--quick` (< 30 s) or the CPU's small sizes.

Shapes after mamf-finder: its quick sweep varies m at n = k = 4096 and reaches 80–90 % of the
exhaustive best (ml-engineering compute/accelerator/benchmarks, @744d01e, read 2026-12-02);
50 warm-up and 100 timed iterations per shape, a 256 MiB buffer zeroed to flush the cache.
Copy buffers are ≥ 4 × the largest L2 in the catalog (wave2.md §2: 1–4 GiB are safe). The CPU
plan is the same code with small sizes: a smoke run, never written as calibration.
"""

from __future__ import annotations

from dataclasses import dataclass, field

MIB = 1024**2
GPU_DTYPES = ("fp32", "tf32", "bf16", "fp16", "fp8", "int8")
CPU_DTYPES = ("fp32", "bf16")


@dataclass(frozen=True)
class BenchPlan:
    """Sizes and repetitions of one run."""

    name: str
    dtypes: tuple[str, ...]
    shapes: tuple[tuple[int, int, int], ...]
    warmup: int
    iters: int
    flush_bytes: int
    copy_bytes: int
    host_bytes: int
    allreduce_bytes: tuple[int, ...]
    decode_dims: dict[str, int] = field(default_factory=dict)
    decode_dtype: str = "bf16"

    @property
    def steps(self) -> int:
        """Progress units: one per matmul shape and dtype, one per other figure."""
        return len(self.dtypes) * len(self.shapes) + 4


def gpu_plan(quick: bool, dims: dict[str, int]) -> BenchPlan:
    """Accelerator sizes: mamf-finder-like sweep, 2 GiB copies, 1 GiB host copies."""
    if quick:
        shapes = ((4096, 4096, 4096), (8192, 4096, 4096), (8192, 8192, 8192))
        return BenchPlan(
            "gpu-quick",
            GPU_DTYPES,
            shapes,
            10,
            30,
            256 * MIB,
            1024 * MIB,
            256 * MIB,
            (1 * MIB, 64 * MIB, 256 * MIB),
            dims,
        )
    sweep = tuple((m, 4096, 4096) for m in range(2048, 20481, 2048))
    full: tuple[tuple[int, int, int], ...] = (*sweep, (8192, 8192, 8192))
    return BenchPlan(
        "gpu",
        GPU_DTYPES,
        full,
        50,
        100,
        256 * MIB,
        2048 * MIB,
        1024 * MIB,
        (1 * MIB, 64 * MIB, 1024 * MIB),
        dims,
    )


def cpu_plan(dims: dict[str, int]) -> BenchPlan:
    """Small sizes for the CPU (tests, and machines without an accelerator): a smoke run."""
    small = {k: min(v, 1024) if k in ("hidden", "intermediate") else v for k, v in dims.items()}
    small["heads"] = max(1, min(small.get("heads", 8), 8))
    small["kv_heads"] = max(1, min(small.get("kv_heads", 8), small["heads"]))
    return BenchPlan(
        "cpu-smoke",
        CPU_DTYPES,
        ((256, 256, 256), (384, 512, 256)),
        2,
        5,
        8 * MIB,
        32 * MIB,
        0,
        (MIB // 4, 4 * MIB),
        small,
        "fp32",
    )
