"""gpuwise supervise as a real process: a SIGTERM from the platform (docker stop, Kubernetes) is
a notice too; what it started is gone afterwards; DMI picks the cloud."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.supervise.clouds import serve
from tests.supervise.support import alive, events, kinds, trainer_cmd, wait_for


def test_platform_sigterm_checkpoints_and_leaves_no_orphans(tmp_path: Path) -> None:
    ckpt = tmp_path / "ckpt"
    ckpt.mkdir()
    journal = tmp_path / "j.sqlite3"
    progress = tmp_path / "progress.log"
    gc_file = tmp_path / "grandchild.pid"
    cmd = trainer_cmd(ckpt, progress, "--grandchild", str(gc_file))
    sup = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gpuwise",
            "supervise",
            "--cloud",
            "none",
            "--grace-s",
            "3",
            "--checkpoint-dir",
            str(ckpt),
            "--checkpoint-poll-s",
            "0.1",
            "--journal",
            str(journal),
            "--job",
            "t",
            "--",
            *cmd,
        ],
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    try:
        assert wait_for(ckpt / "checkpoint-5" / "state.json")
        assert wait_for(gc_file)
        sup.send_signal(signal.SIGTERM)
        _, err = sup.communicate(timeout=20)
    finally:
        if sup.poll() is None:
            sup.kill()
    assert sup.returncode == 75, err
    evs = events(journal, "t")
    (notice,) = kinds(evs, "notice")
    assert notice.data["cloud"] == "platform" and notice.data["reason"] == "SIGTERM"
    assert any(e.data["on_notice"] for e in kinds(evs, "checkpoint"))
    assert "saved-on-term" in progress.read_text()
    trainer_pid = kinds(evs, "child_start")[0].data["pid"]
    assert not alive(trainer_pid)
    assert not alive(int(gc_file.read_text()))  # the trainer's own child went with the group
    assert kinds(evs, "run_end")[0].data["outcome"] == "platform-sigterm"


def test_cloud_is_detected_from_dmi(cli: Any, tmp_path: Path, monkeypatch: Any) -> None:
    dmi = tmp_path / "sys" / "class" / "dmi" / "id"
    dmi.mkdir(parents=True)
    (dmi / "product_name").write_text("Google Compute Engine\n")
    (dmi / "sys_vendor").write_text("Google\n")
    monkeypatch.setenv("GPUWISE_SYSFS_ROOT", str(tmp_path / "sys"))
    with serve("gcp") as (url, state):
        r = cli(
            "supervise",
            "--metadata-url",
            url,
            "--poll-s",
            "0.05",
            "--journal",
            str(tmp_path / "j.sqlite3"),
            "--json",
            "--",
            sys.executable,
            "-c",
            "import time; time.sleep(0.4)",
        )
    assert r.code == 0, r.err
    assert "on gcp (detected from DMI)" in r.err
    assert any(q.path.endswith("/instance/preempted") for q in state.requests)
    assert all(q.headers.get("metadata-flavor") == "Google" for q in state.requests)
