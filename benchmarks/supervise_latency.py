"""How fast `gpuwise supervise` reacts to a notice, and what supervising costs in CPU.

1. Reaction: a loopback server plays AWS's metadata service (tests/supervise/clouds.py); the fake
   trainer (tests/supervise/trainer.py) checkpoints every 200 steps (4 s) and on SIGTERM. 1-2 s
   after its first checkpoint the server announces a stop 30 s later. From the journal: notice
   seen after the server armed (bounded by the poll interval), signal sent after the notice, new
   complete checkpoint after the notice, time left before the deadline. `--poll-s 1`, 5 trials.
2. Overhead: the supervisor's own CPU time while it supervises `sleep 20` with AWS polling at
   the catalog's 5 s and a checkpoint folder of 200 checkpoints × 5 files scanned every second.

Run from the repository root: `.venv/bin/python benchmarks/supervise_latency.py`.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.supervise.clouds import serve  # noqa: E402
from tests.supervise.support import trainer_cmd, wait_for  # noqa: E402

from gpuwise.supervise.journal import Journal  # noqa: E402

BIN = Path(sys.executable).parent / "gpuwise"


def reaction(work: Path) -> dict[str, float]:
    """One preemption; latencies in seconds."""
    ckpt = work / "ckpt"
    ckpt.mkdir()
    journal = work / "j.sqlite3"
    with serve("aws") as (url, state):
        cmd = [
            str(BIN),
            "supervise",
            "--cloud",
            "aws",
            "--metadata-url",
            url,
            "--poll-s",
            "1",
            "--checkpoint-dir",
            str(ckpt),
            "--pattern",
            "checkpoint-*",
            "--journal",
            str(journal),
            "--job",
            "b",
            "--",
            *trainer_cmd(ckpt, work / "p.log", "--save-every", "200"),
        ]
        proc = subprocess.Popen(cmd, stderr=subprocess.DEVNULL)
        wait_for(ckpt / "checkpoint-200" / "state.json")
        time.sleep(random.uniform(1.0, 2.0))  # any phase of the 1 s poll; no periodic save due
        armed = time.time()
        deadline = state.arm(30)
        proc.wait(timeout=60)
    evs = Journal(journal).events("b")
    notice = next(e for e in evs if e.kind == "notice")
    signal = next(e for e in evs if e.kind == "signal")
    saved = next(e for e in evs if e.kind == "checkpoint" and e.data["on_notice"])
    return {
        "seen_s": notice.t - armed,
        "signal_s": signal.t - notice.t,
        "checkpoint_s": saved.t - notice.t,
        "left_s": deadline.timestamp() - saved.t,
        "exit": float(proc.returncode),
    }


def overhead(work: Path) -> tuple[float, float]:
    """(supervisor CPU seconds, wall seconds) while supervising `sleep 20`."""
    ckpt = work / "many"
    for i in range(200):
        d = ckpt / f"checkpoint-{i}"
        d.mkdir(parents=True)
        for j in range(5):
            (d / f"shard-{j}.bin").write_bytes(b"\0" * 1024)
    with serve("aws") as (url, _state):
        start = time.monotonic()
        proc = subprocess.Popen(
            [
                str(BIN),
                "supervise",
                "--cloud",
                "aws",
                "--metadata-url",
                url,
                "--checkpoint-dir",
                str(ckpt),
                "--journal",
                str(work / "o.sqlite3"),
                "--",
                "sleep",
                "20",
            ],
            stderr=subprocess.DEVNULL,
        )
        ps = psutil.Process(proc.pid)
        cpu = 0.0
        while proc.poll() is None:
            try:
                t = ps.cpu_times()
                cpu = t.user + t.system
            except psutil.Error:
                break
            time.sleep(0.2)
        wall = time.monotonic() - start
    return cpu, wall


def main() -> None:
    rows = []
    for _ in range(5):
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["GPUWISE_STATE_DIR"] = tmp
            rows.append(reaction(Path(tmp)))
    print(f"date {dt.date.today()}, python {sys.version.split()[0]}, {os.cpu_count()} cpus")
    print("reaction to an AWS notice (5 trials, --poll-s 1, 30 s notice)")
    for key, label in (
        ("seen_s", "notice seen after the service announced it"),
        ("signal_s", "signal sent after the notice was seen"),
        ("checkpoint_s", "new complete checkpoint after the notice"),
        ("left_s", "time left before the deadline"),
    ):
        values = [r[key] for r in rows]
        print(f"  {label:48s} median {statistics.median(values):6.3f} s  max {max(values):6.3f} s")
    print(f"  exit codes: {sorted({int(r['exit']) for r in rows})}")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["GPUWISE_STATE_DIR"] = tmp
        cpu, wall = overhead(Path(tmp))
    print(
        f"supervisor CPU while idle-supervising: {cpu:.2f} s over {wall:.1f} s "
        f"= {100 * cpu / wall:.1f}% of one core (start-up included)"
    )


if __name__ == "__main__":
    main()
