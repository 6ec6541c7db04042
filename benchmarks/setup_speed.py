"""How long `gpuwise setup` takes: resolve + render of every golden case in-process, and the
whole command in a fresh process (interpreter, imports, catalog, resolve, render, JSON).

Run: .venv/bin/python benchmarks/setup_speed.py
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.setup.cases import CASES  # noqa: E402

from gpuwise.catalog import load_catalog  # noqa: E402
from gpuwise.setup.render_files import render_all  # noqa: E402
from gpuwise.setup.resolve import resolve  # noqa: E402
from gpuwise.setup.tables import SetupTables  # noqa: E402
from gpuwise.setup.target import TargetFlags, from_flags  # noqa: E402

RUNS = 7


def in_process() -> list[float]:
    cat = load_catalog()
    tables = SetupTables.from_catalog(cat)
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        for _name, stack, flags in CASES:
            plan = resolve(tables, from_flags(TargetFlags(**flags), cat, "3.11"), stack)
            render_all(plan)
        times.append((time.perf_counter() - start) / len(CASES))
    return times


def fresh() -> list[float]:
    cmd = [
        sys.executable,
        "-m",
        "gpuwise",
        "setup",
        "--gpu",
        "rtx-4090",
        "--driver",
        "580.95.05",
        "--python",
        "3.12",
        "--stack",
        "vllm",
        "--json",
    ]
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    print(f"{'what':<52}{'median s':>10}{'max s':>9}")
    for label, times in (
        (f"resolve + render, per case ({len(CASES)} golden cases)", in_process()),
        ("gpuwise setup --stack vllm --json (fresh process)", fresh()),
    ):
        print(f"{label:<52}{statistics.median(times):>10.4f}{max(times):>9.4f}")


if __name__ == "__main__":
    main()
