"""`record` with real child processes: exit codes, signals, forked workers, containers, kill -9."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from gpuwise.errors import UserError
from gpuwise.monitor.recorder import Recorder
from gpuwise.monitor.report import run_summary
from gpuwise.monitor.sample_nvidia import NvidiaSource
from gpuwise.monitor.sampler import Sampler
from gpuwise.monitor.store import RunStore
from tests.monitor.fake_nvml import fake_generation

PY = sys.executable
GIB = 1024**3
SRC = str(Path(__file__).resolve().parents[2] / "src")


def recorder(tmp_path: Path, interval: float = 0.1) -> Recorder:
    store = RunStore(tmp_path / "runs.sqlite")
    return Recorder(store, Sampler([NvidiaSource()]), interval)


def test_exit_code_is_passed_through(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_generation("590", monkeypatch)
    rec = recorder(tmp_path)
    result = rec.record([PY, "-c", "import sys, time; time.sleep(0.3); sys.exit(3)"], "three")
    assert result.exit_code == 3
    run = rec.store.run(result.run_id)
    assert run.status == "failed" and run.exit_code == 3 and run.child_pid
    s = run_summary(rec.store, result.run_id)
    assert s["samples"] >= 3 and s["gpus"][0]["peak_used_bytes"] == 65720 * 2**20


def test_death_by_signal_is_128_plus_n(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_generation("590", monkeypatch)
    rec = recorder(tmp_path)
    code = "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"
    result = rec.record([PY, "-c", code], "killed")
    assert result.exit_code == 128 + signal.SIGKILL
    assert rec.store.run(result.run_id).status == "signalled"


WORKERS = """
import subprocess, sys, time
kids = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1.2)"]) for _ in range(2)]
time.sleep(1.0)
for k in kids:
    k.wait()
"""


def test_forked_workers_are_attributed_by_parent_chain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = fake_generation("590", monkeypatch)
    me = psutil.Process()
    stranger = subprocess.Popen([PY, "-c", "import time; time.sleep(5)"])  # not the command's
    try:

        def gpu_processes(_index: int) -> list[tuple[int, int | None]]:
            kids = [p.pid for p in me.children(recursive=True) if p.pid != stranger.pid]
            return [(pid, GIB) for pid in kids] + [(stranger.pid, 7 * GIB)]

        fake.extra_processes = gpu_processes
        rec = recorder(tmp_path)
        result = rec.record([PY, "-c", WORKERS], "workers")
    finally:
        stranger.kill()
        stranger.wait()
    s = run_summary(rec.store, result.run_id)
    pids = {p["pid"] for p in s["processes"]}
    assert result.exit_code == 0 and len(pids) >= 3  # the command and its two workers
    assert stranger.pid not in pids and 116860 not in pids  # other tenants are not the run's
    assert s["host"]["peak_tree_procs"] >= 3 and s["run"]["attribution"] == "process"


def test_invisible_host_pids_switch_to_device_attribution(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = fake_generation("590", monkeypatch)
    fake.gpus[0].processes = [(4_194_000, 30 * GIB, "C")]  # a host PID that does not exist here
    rec = recorder(tmp_path)
    result = rec.record([PY, "-c", "import time; time.sleep(0.3)"], "container")
    s = run_summary(rec.store, result.run_id)
    assert s["run"]["attribution"] == "device" and s["processes"] == []
    assert "monitor.note_device_attributed" in s["notes"]


def test_a_missing_program_is_a_user_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_generation("590", monkeypatch)
    rec = recorder(tmp_path)
    with pytest.raises(UserError) as info:
        rec.record(["/nonexistent/train.sh"], "nope")
    assert info.value.key == "record.cannot_start"
    (run,) = rec.store.runs()
    assert run.status == "failed" and run.exit_code == 127


def spawn_recorder(tmp_path: Path, *args: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "GPUWISE_STATE_DIR": str(tmp_path / "state"), "PYTHONPATH": SRC}
    return subprocess.Popen(
        [PY, "-m", "gpuwise", "record", "--interval", "0.1", *args],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def wait_for(predicate, timeout: float = 15.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError("timed out waiting")


TRAP = """
import signal, sys, time, pathlib
mark = pathlib.Path(sys.argv[1])
def stop(signum, frame):
    mark.write_text(str(signum))
    sys.exit(7)
signal.signal(signal.SIGTERM, stop)
signal.signal(signal.SIGINT, stop)
mark.with_suffix(".ready").write_text("ready")
time.sleep(30)
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signals_to_gpuwise_reach_the_command(tmp_path: Path, signum: int) -> None:
    mark = tmp_path / "got"
    proc = spawn_recorder(tmp_path, "--", PY, "-c", TRAP, str(mark))
    wait_for(lambda: mark.with_suffix(".ready").exists())
    proc.send_signal(signum)
    _out, err = proc.communicate(timeout=20)
    assert mark.read_text() == str(int(signum))
    assert proc.returncode == 7, err.decode()
    assert b"Run #1" in err  # the summary is printed on stderr after the command ended


def test_kill_9_of_the_recorder_keeps_what_was_sampled(tmp_path: Path) -> None:
    proc = spawn_recorder(tmp_path, "--name", "long", "--", PY, "-c", "import time; time.sleep(30)")
    db = tmp_path / "state" / "runs.sqlite"

    def samples() -> int:
        if not db.exists():
            return 0
        with sqlite3.connect(db) as conn:
            try:
                return int(conn.execute("SELECT COUNT(*) FROM host_samples").fetchone()[0])
            except sqlite3.OperationalError:
                return 0

    wait_for(lambda: samples() >= 5)
    seen = samples()
    proc.kill()  # SIGKILL: no handler, no cleanup
    proc.wait(timeout=10)
    store = RunStore(db, create=False)
    (run,) = store.runs()
    try:
        assert samples() >= seen  # nothing committed was lost
        s = run_summary(store, run.id)
        assert s["run"]["status"] == "interrupted" and s["samples"] >= seen
        assert s["run"]["duration_s"] > 0.3
    finally:
        if run.child_pid:
            os.kill(run.child_pid, signal.SIGKILL)
        store.close()


def test_a_sampling_error_never_abandons_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_generation("590", monkeypatch)

    def broken(self: object) -> None:
        raise RuntimeError("psutil went away")

    monkeypatch.setattr("gpuwise.monitor.proctree.ProcessTree.totals", broken)
    rec = recorder(tmp_path)
    result = rec.record([PY, "-c", "import sys, time; time.sleep(0.3); sys.exit(2)"], "x")
    assert result.exit_code == 2 and result.sample_errors >= 2
    assert "psutil went away" in result.last_error
    assert rec.store.run(result.run_id).status == "failed"


TREE = """
import pathlib, subprocess, sys, time
out = pathlib.Path(sys.argv[1])
ignore = sys.argv[2] == "ignore"
code = "import signal, time\\n"
if ignore:
    code += "signal.signal(signal.SIGTERM, signal.SIG_IGN)\\n"
    code += "signal.signal(signal.SIGINT, signal.SIG_IGN)\\n"
    code += "signal.signal(signal.SIGHUP, signal.SIG_IGN)\\n"
code += "time.sleep(60)\\n"
kid = subprocess.Popen([sys.executable, "-c", code])
time.sleep(0.3)  # the grandchild has set its handlers
out.write_text(str(kid.pid))
time.sleep(60)
"""


def _pid_alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.mark.parametrize(
    ("signum", "grandchild"),
    [
        (signal.SIGINT, "plain"),
        (signal.SIGTERM, "plain"),
        (signal.SIGHUP, "plain"),
        (signal.SIGTERM, "ignore"),
    ],
)
def test_sig_record_leaves_no_grandchild(tmp_path: Path, signum: int, grandchild: str) -> None:
    """sig-record-int-pid / sig-record-term / sig-record-hup: a signal to gpuwise's PID stops
    the command's whole process group; a grandchild that ignores it is killed after the grace."""
    gc_file = tmp_path / "grandchild.pid"
    proc = spawn_recorder(tmp_path, "--", PY, "-c", TREE, str(gc_file), grandchild)
    gc_pid = 0
    try:
        wait_for(gc_file.exists)
        gc_pid = int(gc_file.read_text())
        assert _pid_alive(gc_pid)
        proc.send_signal(signum)
        _out, err = proc.communicate(timeout=30)
        assert proc.returncode == 128 + signum, err.decode()
        wait_for(lambda: not _pid_alive(gc_pid), timeout=5)
    finally:
        if proc.poll() is None:
            proc.kill()
        if gc_pid and _pid_alive(gc_pid):
            os.kill(gc_pid, signal.SIGKILL)
