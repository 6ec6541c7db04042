"""A tiny stand-in for a training script, run as a real child process by the supervise tests.

It counts steps, writes a checkpoint folder every `--save-every` steps (slowly, in chunks, so a
checkpoint is visibly "being written" for `--save-s` seconds), saves on SIGUSR1 and continues,
saves on SIGTERM and exits 0 (like HF Trainer's enable_jit_checkpoint), and resumes from
`--resume PATH` or GPUWISE_LAST_CHECKPOINT. Every start and end is appended to `--progress`.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

flags = {"save": False, "term": False}


def save(ckpt_dir: Path, step: int, save_s: float, marker: str | None) -> Path:
    """Write checkpoint-<step>/ in four chunks over save_s seconds, state and marker last."""
    folder = ckpt_dir / f"checkpoint-{step}"
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "weights.bin").open("wb") as fh:
        for _ in range(4):
            fh.write(b"\0" * 4096)
            fh.flush()
            time.sleep(save_s / 4)
    (folder / "state.json").write_text(json.dumps({"step": step}))
    if marker:
        (folder / marker).write_text("done")
    return folder


def resumed_step(path: str | None) -> int:
    if not path:
        return 0
    return int(json.loads((Path(path) / "state.json").read_text())["step"])


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--ckpt-dir", type=Path, required=True)
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--step-s", type=float, default=0.05)
    p.add_argument("--save-every", type=int, default=10)
    p.add_argument("--save-s", type=float, default=0.2)
    p.add_argument("--marker")
    p.add_argument("--resume")
    p.add_argument("--progress", type=Path, required=True)
    p.add_argument("--fail-once", type=Path)
    p.add_argument("--fail-at", type=int, default=5)
    p.add_argument("--grandchild", type=Path)
    p.add_argument("--ignore-term", action="store_true")
    p.add_argument("--exit-code", type=int, default=0)
    a = p.parse_args()

    signal.signal(signal.SIGUSR1, lambda *_: flags.__setitem__("save", True))
    if a.ignore_term:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    else:
        signal.signal(signal.SIGTERM, lambda *_: flags.__setitem__("term", True))
    resume = a.resume or os.environ.get("GPUWISE_LAST_CHECKPOINT")
    start = resumed_step(resume)
    with a.progress.open("a") as log:
        log.write(f"start resume={start} pid={os.getpid()}\n")
    if a.grandchild:
        kid = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        a.grandchild.write_text(str(kid.pid))
    step = start
    while step < a.steps:
        step += 1
        time.sleep(a.step_s)
        if a.fail_once and not a.fail_once.exists() and step >= a.fail_at:
            a.fail_once.write_text("failed once")
            return 3
        if flags["term"]:
            save(a.ckpt_dir, step, a.save_s, a.marker)
            with a.progress.open("a") as log:
                log.write(f"saved-on-term step={step}\n")
            return 0
        if flags["save"] or step % a.save_every == 0:
            flags["save"] = False
            save(a.ckpt_dir, step, a.save_s, a.marker)
    with a.progress.open("a") as log:
        log.write(f"done step={step}\n")
    return a.exit_code


if __name__ == "__main__":
    sys.exit(main())
