"""Bad input is one line and exit 2; an unreachable metadata service is a warning, not a failure;
a slow checkpoint is flagged against the notice."""

from __future__ import annotations

import socket
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.supervise.support import events, kinds, trainer_cmd

SLEEP = [sys.executable, "-c", "import time; time.sleep(0.2)"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["supervise"], "no command to supervise"),
        (["supervise", "--cloud", "aws"], "no command to supervise"),
        (["supervise", "--cloud", "ibm", "--", *SLEEP], "unknown cloud 'ibm'"),
        (["supervise", "--signal", "SIGSTOP", "--", *SLEEP], "--signal 'SIGSTOP' is not supported"),
        (["supervise", "--metadata-url", "169.254.169.254", "--", *SLEEP], "--metadata-url"),
        (["supervise", "--poll-s", "0", "--", *SLEEP], "--poll-s 0.0 is out of range"),
        (["supervise", "--margin-s", "-1", "--", *SLEEP], "--margin-s -1.0 is out of range"),
        (["supervise", "--max-restarts", "-2", "--", *SLEEP], "--max-restarts -2 is out of range"),
        (["supervise", "--", "/no/such/trainer"], "cannot start '/no/such/trainer'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(cli: Any, args: list[str], needle: str) -> None:
    r = cli(*args)
    assert r.code == 2, (r.out, r.err)
    assert needle in r.err
    assert "Traceback" not in r.err
    assert len(r.err.strip().splitlines()) <= 3  # the error (plus progress lines, no trace)


def test_missing_checkpoint_dir_is_exit_2(cli: Any, tmp_path: Path) -> None:
    r = cli("supervise", "--checkpoint-dir", str(tmp_path / "nope"), "--", *SLEEP)
    assert r.code == 2
    assert "does not exist" in r.err and str(tmp_path / "nope") in r.err
    afile = tmp_path / "file"
    afile.write_text("x")
    assert cli("supervise", "--checkpoint-dir", str(afile), "--", *SLEEP).code == 2


def test_report_errors(cli: Any, tmp_path: Path) -> None:
    r = cli("supervise", "--report", "--journal", str(tmp_path / "none.sqlite3"))
    assert r.code == 2 and "no supervise journal" in r.err
    journal = tmp_path / "j.sqlite3"
    assert cli("supervise", "--journal", str(journal), "--job", "a", "--", *SLEEP).code == 0
    r = cli("supervise", "--report", "--journal", str(journal), "--job", "b")
    assert r.code == 2 and "no job 'b'" in r.err and "a" in r.err
    r = cli("supervise", "--report", "--journal", str(journal), "--", *SLEEP)
    assert r.code == 2 and "--report" in r.err
    r = cli("supervise", "--report", "--journal", str(journal), "--offer", "aws:nope:spot")
    assert r.code == 2


def test_a_file_that_is_not_a_journal_is_refused_and_kept(cli: Any, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes, not a database\n" * 50)
    r = cli("supervise", "--journal", str(notes), "--", *SLEEP)
    assert r.code == 2 and "not a gpuwise supervise journal" in r.err
    assert notes.read_text() == "my notes, not a database\n" * 50


def test_unreachable_metadata_warns_and_supervises_anyway(cli: Any, tmp_path: Path) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    journal = tmp_path / "j.sqlite3"
    r = cli(
        "supervise",
        "--cloud",
        "aws",
        "--metadata-url",
        f"http://127.0.0.1:{port}",
        "--journal",
        str(journal),
        "--json",
        "--",
        *SLEEP,
    )
    assert r.code == 0, r.err
    assert "did not answer" in r.err and "supervising without preemption notices" in r.err
    out = r.json()
    assert out["outcome"] == "completed" and "metadata_unreachable" in out["warnings"]
    warn = [e for e in kinds(events(journal, out["job"]), "warning")]
    assert warn and warn[0].data["key"] == "metadata_unreachable"


def test_a_checkpoint_slower_than_the_notice_is_flagged(cli: Any, tmp_path: Path) -> None:
    ckpt = tmp_path / "ckpt"
    ckpt.mkdir()
    cmd = trainer_cmd(ckpt, tmp_path / "p.log", "--steps", "12", "--save-s", "0.8")
    journal = tmp_path / "j.sqlite3"
    r = cli(
        "supervise",
        "--checkpoint-dir",
        str(ckpt),
        "--checkpoint-poll-s",
        "0.05",
        "--marker",
        "state.json",
        "--grace-s",
        "0.5",
        "--journal",
        str(journal),
        "--json",
        "--",
        *cmd,
    )
    assert r.code == 0, r.err
    out = r.json()
    assert "slow_checkpoint" in out["warnings"]
    assert "cannot finish" in r.err
    cadence = out["cadence"]
    assert cadence["flagged"] is True and cadence["notice_s"] == 0.5
    assert cadence["median_save_s"] > cadence["usable_s"]
    report = cli("supervise", "--report", "--journal", str(journal), "--json").json()
    assert report["jobs"][0]["cadence"]["flagged"] is True
    table = cli("supervise", "--report", "--journal", str(journal))
    assert "TOO SLOW" in table.out


def test_report_in_chinese(cli: Any, tmp_path: Path) -> None:
    journal = tmp_path / "j.sqlite3"
    assert cli("supervise", "--journal", str(journal), "--job", "任务", "--", *SLEEP).code == 0
    r = cli("--lang", "zh", "supervise", "--report", "--journal", str(journal))
    assert r.code == 0 and "托管任务 任务" in r.out and "总耗时" in r.out
