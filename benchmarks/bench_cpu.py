"""`gpuwise bench` on this machine's CPU: wall time of a whole run and the figures it measures.

The CPU plan runs the same code paths as a GPU run with small sizes (a smoke run); these figures
check that timings are sane (a 2-core Xeon: ~0.1 TFLOPS FP32), not a GPU. It also prints how
many timed kernel calls each plan makes, the size of a GPU run, and the start-up of
`gpuwise bench --help` (torch must not be imported by it).

    .venv/bin/python benchmarks/bench_cpu.py [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _plans() -> None:
    from gpuwise.bench.plan import cpu_plan, gpu_plan

    dims = {"hidden": 4096, "intermediate": 14336, "heads": 32, "kv_heads": 8}
    for plan in (cpu_plan(dims), gpu_plan(True, dims), gpu_plan(False, dims)):
        calls = len(plan.dtypes) * len(plan.shapes) * (plan.warmup + plan.iters)
        print(
            f"plan {plan.name:10s} matmul calls {calls:6d}  copy {plan.copy_bytes >> 20} MiB"
            f"  host {plan.host_bytes >> 20} MiB  shapes {len(plan.shapes)}"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from gpuwise.bench.runner import BenchOptions, run_bench

    walls, results = [], []
    t0 = time.perf_counter()
    run_bench(BenchOptions(device="cpu"), lambda _: None, lambda _: None)  # imports torch
    first = time.perf_counter() - t0
    for _ in range(args.runs):
        t0 = time.perf_counter()
        results.append(run_bench(BenchOptions(device="cpu"), lambda _: None, lambda _: None))
        walls.append(time.perf_counter() - t0)
    print(
        f"first run (with torch import): {first:.2f} s; later runs median "
        f"{statistics.median(walls):.2f} s"
    )
    for fig in results[0]["figures"]:
        values = [
            next(f["measured"] for f in r["figures"] if f["figure"] == fig["figure"])
            for r in results
        ]
        print(
            f"{fig['figure']:16s} median {statistics.median(values):9.3f} {fig['unit']}"
            f"  (min {min(values):.3f}, max {max(values):.3f})"
        )
    _plans()
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "gpuwise", "bench", "--help"],
        check=True,
        capture_output=True,
        cwd=ROOT,
    )
    print(f"gpuwise bench --help: {time.perf_counter() - t0:.2f} s (no torch import)")


if __name__ == "__main__":
    main()
