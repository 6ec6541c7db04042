"""Median wall time of each command in a fresh process (targets in benchmarks/README.md).

Runs each command N times in fresh processes after one warm-up run (which builds the catalog
cache, as a user's first run does) and prints median and p90 in seconds.

The processes run with Python's bytecode cache on, as on a user's machine (pip compiles an
installed package; an editable one writes `__pycache__` on first import): a shell that sets
PYTHONDONTWRITEBYTECODE (some sandboxes and containers do) would otherwise recompile every
gpuwise module on every run, about 0.06 s that no user pays.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

BIN = Path(sys.executable).parent / "gpuwise"
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
COMMANDS = [
    ["--help"],
    ["gpus"],
    ["gpus", "show", "4090"],
    ["models"],
    ["estimate", "qwen2.5:7b", "--gpu", "4090"],
    ["estimate", "llama3.1:8b", "--mode", "qlora", "--gpu", "4090", "--train-tokens", "2e7"],
    ["fit", "qwen2.5:7b"],
    ["offers"],
    [
        "cost",
        "--own",
        "rtx-4090",
        "--count",
        "2",
        "--vs",
        "runpod:1x_A100-80GB_SECURE:spot",
        "--hours-per-day",
        "4",
        "--months",
        "12",
    ],
    ["plan", "--example"],
    ["doctor", "--timeout", "5"],
]


def time_command(args: list[str], runs: int) -> list[float]:
    """Wall seconds of `gpuwise ARGS` over `runs` fresh processes (exit 0, or 1 for doctor,
    which exits 1 when it finds an error: a result, not a failure to run). Any other exit code
    stops the script: the README's `cost` example once failed, and its figure timed the error."""
    warm = subprocess.run([str(BIN), *args], capture_output=True, check=False, env=ENV)
    if warm.returncode not in ((0, 1) if args[:1] == ["doctor"] else (0,)):
        raise SystemExit(f"gpuwise {' '.join(args)} exited {warm.returncode}: {warm.stderr!r}")
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([str(BIN), *args], capture_output=True, check=False, env=ENV)
        out.append(time.perf_counter() - start)
    return out


def main(runs: int = 9, extra: list[list[str]] | None = None) -> None:
    """Print one line per command: median and p90 wall seconds."""
    print(f"{'command':60} {'median s':>9} {'p90 s':>7}")
    for args in COMMANDS + (extra or []):
        times = sorted(time_command(args, runs))
        p90 = times[int(0.9 * (len(times) - 1))]
        label = ("gpuwise " + " ".join(args))[:60]
        print(f"{label:60} {statistics.median(times):9.3f} {p90:7.3f}")


if __name__ == "__main__":
    main()
