"""What the input bounds cost and save: `cost` over the longest allowed horizon, the rejection of
`--months 1e30` (which used to compute one full bill per month of the chart), and the time to
import gpuwise.units (every command imports it). In-process, catalog already loaded; medians.
"""

from __future__ import annotations

import contextlib
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time


def _median_s(args: list[str], runs: int = 7) -> tuple[int, float]:
    from gpuwise.cli.app import main

    times, code = [], 0
    for _ in range(runs):
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            code = main(args)
        times.append(time.perf_counter() - start)
    return code, statistics.median(times)


def main() -> None:
    os.environ.setdefault("GPUWISE_CACHE_DIR", tempfile.mkdtemp())
    _median_s(["gpus"], 1)  # build the catalog cache
    print(f"{'command':58} {'exit':>4} {'median s':>9}")
    for months in ("24", "120", "600", "601", "1e30"):
        args = ["cost", "--own", "4090", "--vs", "aws:g5.xlarge", "--months", months, "--json"]
        code, secs = _median_s(args)
        print(f"{' '.join(args):58} {code:>4} {secs:>9.3f}")
    code_text = (
        "import time, typer, gpuwise.errors; t = time.perf_counter(); import gpuwise.units; "
        "print(time.perf_counter() - t)"
    )
    out = [
        float(subprocess.run([sys.executable, "-c", code_text], capture_output=True, text=True,
                             check=True).stdout)
        for _ in range(7)
    ]  # fmt: skip
    ms = statistics.median(out) * 1000
    print(f"import gpuwise.units after typer (fresh process, median of 7): {ms:.1f} ms")


if __name__ == "__main__":
    main()
