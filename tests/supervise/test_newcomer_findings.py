"""Regression tests for the supervise findings of the newcomer review
(../shared/research/review3/newcomer.md, #10 and Part 2: su-pattern-bad, su-journal-*).

The report must say what happened: a checkpoint written before the notice is not "saved on the
notice", a command killed at the deadline did not "stop cleanly", and the suggested
`--spot-interruptions-per-day` is one `gpuwise cost` accepts.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from gpuwise.cli.cmd_supervise import build_config
from gpuwise.preempt.summary import JournalEvent, summarise
from gpuwise.supervise.config import check_pattern
from gpuwise.supervise.runner import Supervisor
from tests.supervise.support import events, kinds, wait_for

TRUE = [sys.executable, "-c", "pass"]


def _options(tmp_path: Path, **over: Any) -> dict[str, Any]:
    """The option dict the CLI builds, with every option at its default."""
    opts: dict[str, Any] = dict.fromkeys(
        (
            "metadata_url", "checkpoint_dir", "marker", "on_notice", "margin_s", "notice_s",
            "poll_s", "checkpoint_poll_s", "grace_s", "max_restarts", "backoff_s", "job", "offer",
        )
    )  # fmt: skip
    opts.update(
        command=TRUE,
        cloud="none",
        pattern="checkpoint-*",
        sig="SIGTERM",
        restart=False,
        journal=tmp_path / "j.sqlite3",
        report=False,
        as_json=False,
    )
    opts.update(over)
    return opts


def _write_checkpoint(folder: Path, mtime_ns: int) -> None:
    folder.mkdir(parents=True)
    for name in ("weights.bin", "state.json"):
        (folder / name).write_bytes(b"x" * 64)
        os.utime(folder / name, ns=(mtime_ns, mtime_ns))
    os.utime(folder, ns=(mtime_ns, mtime_ns))


# ------------------------------------------------------------------ su-pattern-bad


@pytest.mark.parametrize("pattern", ["[", "checkpoint-[", "[]", "", "out/checkpoint-*"])
def test_su_pattern_bad_is_refused(cli: Any, tmp_path: Path, pattern: str) -> None:
    """A glob that can never match a top-level entry is refused before anything runs."""
    r = cli("supervise", "--cloud", "none", "--checkpoint-dir", str(tmp_path), "--pattern",
            pattern, "--journal", str(tmp_path / "j.sqlite3"), "--", *TRUE)  # fmt: skip
    assert r.code == 2, (r.out, r.err)
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and "--pattern" in lines[0], r.err
    assert not (tmp_path / "j.sqlite3").exists()  # nothing ran, nothing journaled


@pytest.mark.parametrize("pattern", ["*", "checkpoint-*", "ckpt-[0-9]*", "[]x]", "[!.]*", "a[]]"])
def test_valid_patterns_are_kept(pattern: str) -> None:
    assert check_pattern(pattern) == pattern


# ------------------------------------------------------------------ su-journal-*


@pytest.mark.parametrize("kind", ["garbage", "dir"])
def test_su_journal_bad_prints_one_line(cli: Any, tmp_path: Path, kind: str) -> None:
    """A bad --journal is the only line: no "no cloud recognised" warning before it."""
    journal = tmp_path / "journal"
    if kind == "garbage":
        journal.write_bytes(bytes(range(256)) * 8)
    else:
        journal.mkdir()
    before = journal.read_bytes() if kind == "garbage" else None
    r = cli("supervise", "--journal", str(journal), "--", *TRUE)
    assert r.code == 2, (r.out, r.err)
    lines = r.err.strip().splitlines()
    assert len(lines) == 1, r.err
    assert str(journal) in lines[0] and "no cloud" not in r.err
    if before is not None:
        assert journal.read_bytes() == before


# ------------------------------------------------------------------ on_notice from mtimes


def test_checkpoint_written_before_the_notice_is_not_saved_on_notice(tmp_path: Path) -> None:
    """#10: a checkpoint complete 0.5 s before the notice, first confirmed by a scan after it,
    is journaled `on_notice: false`; one written after the notice is `on_notice: true`."""
    ckpt = tmp_path / "ckpt"
    ckpt.mkdir()
    cfg = build_config(_options(tmp_path, checkpoint_dir=ckpt, job="j"))
    sup = Supervisor(cfg)
    sup._open()
    sup.notice_ns = time.time_ns()
    _write_checkpoint(ckpt / "checkpoint-old", sup.notice_ns - 500_000_000)
    _write_checkpoint(ckpt / "checkpoint-new", sup.notice_ns + 50_000_000)
    for _ in range(cfg.stable_polls + 1):
        sup._maybe_scan(on_notice=True, force=True)
    seen = {
        e.data["name"]: e.data["on_notice"] for e in kinds(events(cfg.journal, "j"), "checkpoint")
    }
    assert seen == {"checkpoint-old": False, "checkpoint-new": True}


def _ev(t: float, kind: str, **data: Any) -> JournalEvent:
    return JournalEvent(1, t, kind, data)


def test_report_reads_saved_on_notice_from_the_content_time() -> None:
    """Even a journal that says `on_notice: true` (older gpuwise) is judged by `mtime_ns`: work
    written 0.5 s before the notice is not "saved on notice", and the work after it is lost."""
    evs = [
        _ev(0, "run_start"),
        _ev(1, "child_start"),
        _ev(100, "notice"),
        _ev(100.6, "checkpoint", path="/c/1", on_notice=True, mtime_ns=int(99.5e9)),
        _ev(110, "child_exit", code=0),
        _ev(110.1, "run_end", outcome="preempted"),
    ]
    (stop,) = summarise("j", evs).interruptions
    assert stop.checkpoint_on_notice is False
    assert stop.lost_s == pytest.approx(110 - 99.5, abs=0.05)
    fresh = [*evs[:3], _ev(104, "checkpoint", path="/c/2", on_notice=True, mtime_ns=int(103.9e9)),
             *evs[4:]]  # fmt: skip
    (stop,) = summarise("j", fresh).interruptions
    assert stop.checkpoint_on_notice is True and stop.lost_s == pytest.approx(110 - 103.9, abs=0.05)


# ------------------------------------------------------------------ the suggested rate


def test_suggested_interruption_rate_is_one_cost_accepts(cli: Any) -> None:
    """#10: 1 interruption in 7 s of running measures 12 343 a day; the report suggests 1 440,
    the most `gpuwise cost --spot-interruptions-per-day` takes, and says why."""
    evs = [
        _ev(0, "run_start"),
        _ev(0, "child_start"),
        _ev(6.9, "checkpoint", path="/c/1", on_notice=True, mtime_ns=int(6.8e9)),
        _ev(7, "notice"),
        _ev(7, "child_exit", code=0),
        _ev(7.1, "run_end", outcome="preempted"),
    ]
    s = summarise("j", evs)
    assert s.measured_plan_inputs()["spot_interruptions_per_day"] == pytest.approx(24 * 3600 / 7)
    plan = s.plan_inputs()
    assert plan["spot_interruptions_per_day"] == 1440
    assert plan["checkpoint_min"] is not None and plan["checkpoint_min"] > 0  # cost refuses 0
    (clamp, *_rest) = s.plan_clamps()
    assert clamp["flag"] == "--spot-interruptions-per-day" and clamp["used"] == 1440
    args = ["cost", "--own", "rtx-4090", "--vs", "runpod:1x_A100-80GB_SECURE:spot",
            "--spot-interruptions-per-day", f"{plan['spot_interruptions_per_day']:.2f}",
            "--checkpoint-min", f"{plan['checkpoint_min']:.1f}"]  # fmt: skip
    r = cli(*args)
    assert r.code == 0, r.err


# ------------------------------------------------------------------ killed is not "cleanly"

IGNORES_TERM = (
    "import pathlib, signal, sys, time\n"
    "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "pathlib.Path(sys.argv[1]).write_text('ready')\n"
    "time.sleep(30)\n"
)


def test_child_killed_at_the_deadline_is_not_stopped_cleanly(cli: Any, tmp_path: Path) -> None:
    """#10: a command that ignores SIGTERM is SIGKILLed at the deadline; the outcome line, the
    JSON and the report say so instead of "stopped cleanly"."""
    from tests.supervise.clouds import serve

    journal = tmp_path / "j.sqlite3"
    ready = tmp_path / "ready"
    with serve("gcp") as (url, state):
        armer = threading.Thread(target=lambda: wait_for(ready) and state.arm(1.0), daemon=True)
        armer.start()
        r = cli("supervise", "--cloud", "gcp", "--metadata-url", url, "--poll-s", "0.05",
                "--notice-s", "1", "--journal", str(journal), "--job", "k", "--json", "--",
                sys.executable, "-c", IGNORES_TERM, str(ready))  # fmt: skip
        armer.join(timeout=5)
    assert r.code == 75, r.err
    assert r.json()["killed"] is True
    assert "cleanly" not in r.err and "killed (SIGKILL)" in r.err
    evs = events(journal, "k")
    assert kinds(evs, "child_exit")[-1].data["killed"] is True
    report = cli("supervise", "--report", "--journal", str(journal), "--json").json()
    (stop,) = report["jobs"][0]["stops"]
    assert stop["killed"] is True
    assert "killed" in cli("supervise", "--report", "--journal", str(journal)).out
