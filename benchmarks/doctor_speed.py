"""How fast `gpuwise doctor` answers (targets in benchmarks/README.md: ≤ 2 s without --nccl,
`--from` on a 1 MB paste ≤ 1 s).

1. `gpuwise doctor --json` on this machine, fresh processes (what a user waits for).
2. Probing and diagnosing a faked machine in-process (tests/doctor/machine.py: fake tools, fake
   /proc and /sys, a loopback Ollama) — the replay of one report from tests/doctor/reports.py.
3. `gpuwise doctor --from` on 1 MB pastes, fresh processes and in-process (recognise, assemble,
   diagnose): every report fixture plus recorded tool outputs repeated to 1 MB; one 1 MB Ollama
   log; 1 MB of prose that matches nothing; 1 MB in a single line.

Run from the repository root: `python benchmarks/doctor_speed.py [runs]`.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
BIN = Path(sys.executable).parent / "gpuwise"
FIX = ROOT / "tests" / "fixtures"
MB = 1024 * 1024


def fresh(args: list[str], runs: int) -> list[float]:
    """Wall seconds of `gpuwise ARGS` in fresh processes (after one warm-up run)."""
    subprocess.run([str(BIN), *args], capture_output=True, check=False)
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([str(BIN), *args], capture_output=True, check=False)
        out.append(time.perf_counter() - start)
    return out


def line(label: str, times: list[float]) -> None:
    times = sorted(times)
    p90 = times[int(0.9 * (len(times) - 1))]
    print(f"{label:58} {statistics.median(times):8.3f} {p90:7.3f} {max(times):7.3f}")


def pastes() -> dict[str, str]:
    """1 MB test pastes."""
    parts = [p.read_text() for p in sorted((FIX / "reports").glob("*.txt"))]
    parts += [(FIX / "nvidia-smi" / "tesla-t4-515.105.01.xml").read_text()]
    parts += [(FIX / "rocm-smi" / "rx6700xt-rocm-6.1.2.json").read_text()]
    parts += [(FIX / "npu-smi" / "910b4-1-x2-npu-smi-25.2.0.txt").read_text()]
    mixed = "\n\n".join(parts)
    log = (FIX / "reports" / "ollama-8772-gfx1031-unsupported.txt").read_text()
    prose = "We tried the model again after lunch and it still felt slow on the laptop.\n"
    return {
        "mixed reports + tool outputs": (mixed * (MB // len(mixed) + 1))[:MB],
        "one long ollama serve log": (log * (MB // len(log) + 1))[:MB],
        "prose that matches nothing": (prose * (MB // len(prose) + 1))[:MB],
        "one 1 MB line": ("x" * (MB - 1)) + "\n",
    }


def in_process_paste(text: str, runs: int) -> tuple[list[float], int]:
    from gpuwise.catalog import load_catalog
    from gpuwise.catalog.compat import CompatTables
    from gpuwise.doctor.paste.model import Text
    from gpuwise.doctor.paste.report import make_paste_report

    tables = CompatTables.from_catalog(load_catalog())
    times, blocks = [], 0
    for _ in range(runs):
        start = time.perf_counter()
        report = make_paste_report([Text.of("paste.txt", text)], tables, 0.0)
        json.dumps(report)
        times.append(time.perf_counter() - start)
        blocks = len(report["paste"]["blocks"])
    return times, blocks


def faked_machine(runs: int) -> list[float]:
    from tests.doctor import machine
    from tests.doctor.reports import CASES

    case = next(c for c in CASES if c.id == "ollama-17290-p40-driver-535")
    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            machine.run(Path(tmp), case.machine)
            times.append(time.perf_counter() - start)
    return times


def main(runs: int = 7) -> None:
    print(f"{'what':58} {'median s':>8} {'p90 s':>7} {'max s':>7}")
    line("gpuwise doctor --json (this machine, fresh process)", fresh(["doctor", "--json"], runs))
    line("faked machine: probe + diagnose (in-process)", faked_machine(runs))
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in pastes().items():
            path = Path(tmp) / "paste.txt"
            path.write_text(text)
            line(
                f"--from 1 MB, {name} (fresh process)",
                fresh(["doctor", "--from", str(path), "--json"], runs),
            )
            times, blocks = in_process_paste(text, runs)
            line(f"--from 1 MB, {name} (in-process, {blocks} blocks)", times)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
