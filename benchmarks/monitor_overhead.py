"""Overhead of sampling: CPU share and memory of a `gpuwise record` process at a 1 s interval.

Starts `gpuwise record --interval 1 -- python -c "sleep S"` in a fresh process and measures the
recorder itself (not the command) with psutil: CPU seconds per wall second between the end of
start-up and the end of the run (steady state), and the largest resident set size seen. Target
(issue 16): < 1 % of one core and < 60 MB RSS.

Variants: "this machine" uses the sources found here (host only where there is no GPU);
"fake NVML ×N" patches nvidia-ml-py with the recorded values of tests/monitor/fake_nvml.py so
the NVIDIA code path (readings, per-process attribution, store writes) runs for N GPUs. A real
driver's NVML calls add their own C time, which only a GPU machine can measure.
It also times one `Sampler.sample()` call in-process (median of 50).

    .venv/bin/python benchmarks/monitor_overhead.py [--seconds 30]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
LAUNCH_FAKE = """
import sys
import pytest
from tests.monitor.fake_nvml import FIXTURES, FakeNvml, gpu_from_xml
gpus = [gpu_from_xml(FIXTURES / "dual-rtx-a5000-590.44.01.xml", i % 2) for i in range({n})]
FakeNvml(gpus).install(pytest.MonkeyPatch())
from gpuwise.cli.app import main
sys.exit(main(sys.argv[1:]))
"""


def measure(seconds: float, fake_gpus: int) -> tuple[float, float, int]:
    """(CPU % of one core in steady state, peak RSS in MB, samples stored) of one recording."""
    state = tempfile.mkdtemp(prefix="gpuwise-bench-")
    env = {**os.environ, "GPUWISE_STATE_DIR": state, "PYTHONPATH": f"{ROOT}:{ROOT / 'src'}"}
    record = [
        "record",
        "--interval",
        "1",
        "--",
        sys.executable,
        "-c",
        f"import time; time.sleep({seconds})",
    ]
    if fake_gpus:
        argv = [sys.executable, "-c", LAUNCH_FAKE.format(n=fake_gpus), *record]
    else:
        argv = [sys.executable, "-m", "gpuwise", *record]
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ps = psutil.Process(proc.pid)
    time.sleep(3.0)  # start-up (imports, NVML init) is not sampling overhead
    c0, t0 = ps.cpu_times(), time.monotonic()
    peak = 0
    while time.monotonic() - t0 < seconds - 4.0:
        peak = max(peak, ps.memory_info().rss)
        time.sleep(0.25)
    c1, t1 = ps.cpu_times(), time.monotonic()
    proc.wait()
    cpu = (c1.user + c1.system - c0.user - c0.system) / (t1 - t0) * 100
    import sqlite3

    with sqlite3.connect(Path(state) / "runs.sqlite") as conn:
        stored = int(conn.execute("SELECT COUNT(*) FROM host_samples").fetchone()[0])
    return cpu, peak / 1e6, stored


def sample_call_ms(fake_gpus: int) -> float:
    """Median milliseconds of one Sampler.sample() with `fake_gpus` fake NVIDIA GPUs."""
    sys.path[:0] = [str(ROOT), str(ROOT / "src")]
    import pytest
    from tests.monitor.fake_nvml import FIXTURES, FakeNvml, gpu_from_xml

    from gpuwise.monitor.sample_nvidia import NvidiaSource
    from gpuwise.monitor.sampler import Sampler

    mp = pytest.MonkeyPatch()
    gpus = [
        gpu_from_xml(FIXTURES / "dual-rtx-a5000-590.44.01.xml", i % 2) for i in range(fake_gpus)
    ]
    FakeNvml(gpus).install(mp)
    sampler = Sampler([NvidiaSource()])
    sampler.open()
    times = []
    for _ in range(50):
        start = time.perf_counter()
        sampler.sample()
        times.append((time.perf_counter() - start) * 1000)
    sampler.close()
    mp.undo()
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    print(f"gpuwise record --interval 1, {args.seconds:.0f} s runs, recorder process only")
    print(f"{'variant':<22}{'CPU % of a core':>17}{'peak RSS MB':>13}{'samples':>9}")
    for label, n in (("this machine", 0), ("fake NVML x2", 2), ("fake NVML x8", 8)):
        cpu, rss, stored = measure(args.seconds, n)
        print(f"{label:<22}{cpu:>17.2f}{rss:>13.1f}{stored:>9}")
    for n in (2, 8):
        print(
            f"Sampler.sample() with {n} fake GPUs + host: {sample_call_ms(n):.2f} ms (median of 50)"
        )


if __name__ == "__main__":
    main()
