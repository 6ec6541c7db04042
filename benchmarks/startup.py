"""Median wall time of CLI start-up paths (issue targets: --help and `gpus` at most 0.25 s).

Runs each command N times in fresh processes after one warm-up run (which builds the catalog
cache, as a user's first run does) and prints median and p90 in seconds.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

BIN = Path(sys.executable).parent / "gpuwise"
COMMANDS = [["--help"], ["gpus"], ["gpus", "show", "4090"], ["models"]]


def time_command(args: list[str], runs: int) -> list[float]:
    """Wall seconds of `gpuwise ARGS` over `runs` fresh processes."""
    subprocess.run([str(BIN), *args], capture_output=True, check=True)
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([str(BIN), *args], capture_output=True, check=True)
        out.append(time.perf_counter() - start)
    return out


def main(runs: int = 15, extra: list[list[str]] | None = None) -> None:
    """Print one line per command: median and p90 wall seconds."""
    print(f"{'command':40} {'median s':>9} {'p90 s':>7}")
    for args in COMMANDS + (extra or []):
        times = sorted(time_command(args, runs))
        p90 = times[int(0.9 * (len(times) - 1))]
        print(f"{'gpuwise ' + ' '.join(args):40} {statistics.median(times):9.3f} {p90:7.3f}")


if __name__ == "__main__":
    main()
