"""Ctrl-C (SIGINT) or SIGTERM while the doctor probes: gpuwise ends, and no child it started
survives it. The real CLI runs in its own process, its probe tools are fake binaries that hang
(`exec sleep 60`), a real signal is sent to gpuwise alone (not its process group, as a
supervisor or `kill` would), and /proc is searched for any process still carrying the run's
marker in its environment."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.probe.support import FAKEBIN, fake_path

pytestmark = pytest.mark.skipif(
    sys.platform != "linux", reason="reads /proc/<pid>/environ to find survivors"
)

HUNG_TOOLS = ("nvidia-smi", "rocm-smi", "amd-smi", "npu-smi", "docker", "nvcc", "dmesg", "ollama")


def marked(marker: str, exclude: int) -> list[int]:
    """Processes (other than `exclude`) whose environment holds `marker`."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == exclude:
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                env = fh.read()
            with open(f"/proc/{entry}/stat", "rb") as fh:
                state = fh.read().rsplit(b")", 1)[-1].split()[0]
        except OSError:
            continue
        if marker.encode() in env.split(b"\0") and state != b"Z":
            out.append(int(entry))
    return out


def wait_for(check: object, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if check():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_signal_ends_every_probe_child(tmp_path: Path, sig: signal.Signals) -> None:
    marker = f"GPUWISE_TEST_RUN={uuid.uuid4().hex}"
    env = {
        **os.environ,
        "PATH": fake_path(tmp_path, *HUNG_TOOLS),
        "HOME": str(tmp_path),
        "OLLAMA_HOST": "127.0.0.1:9",
        "FAKE_PYTHON_MODE": "hang",
        marker.split("=")[0]: marker.split("=")[1],
    }
    for tool in HUNG_TOOLS:
        env[f"FAKE_{tool.upper().replace('-', '_')}_MODE"] = "hang"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gpuwise",
            "doctor",
            "--json",
            "--timeout",
            "120",
            "--python",
            str(FAKEBIN / "fake-python"),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    survivors: list[int] = []
    try:
        # wait until the probes are running: several hung children, the fake Python among them
        assert wait_for(lambda: len(marked(marker, proc.pid)) >= 3, 30), "probes never started"
        started = marked(marker, proc.pid)
        proc.send_signal(sig)
        proc.wait(timeout=15)
        assert proc.returncode != 0
        assert proc.returncode in (1, 130, 128 + sig, -sig), proc.returncode
        wait_for(lambda: not marked(marker, proc.pid), 3)
        survivors = marked(marker, proc.pid)
        assert not survivors, f"{len(survivors)} of {len(started)} children survived gpuwise"
        err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        assert "Traceback" not in err, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in survivors or marked(marker, proc.pid):  # only processes this test started
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def test_no_child_starts_after_shutdown(tmp_path: Path) -> None:
    """A probe thread that starts a child just after the interrupt gets no child at all."""
    from gpuwise.probe.run import reopen, run_cmd, shutdown

    try:
        shutdown()
        env = {"PATH": fake_path(tmp_path, "nvidia-smi"), "FAKE_NVIDIA_SMI_MODE": "hang"}
        t0 = time.monotonic()
        r = run_cmd(["nvidia-smi"], 30, env=env)
        assert time.monotonic() - t0 < 5
        assert r.error  # refused, not left running
    finally:
        reopen()
