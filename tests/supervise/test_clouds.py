"""Each cloud's notice, played by a real loopback server, reaches a real trainer in time.

The trainer checkpoints every 5 steps; once its first checkpoint exists the fake service starts
announcing that the VM goes away about 3 s later. gpuwise must send the signal, see the new complete
checkpoint before the deadline, stop the process group, journal it all and exit 75.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from tests.supervise.clouds import TOKEN, serve
from tests.supervise.support import (
    FAST,
    alive,
    arm_after_first_checkpoint,
    events,
    iso,
    kinds,
    trainer_cmd,
)

NOTICE_S = 3.0


def _run(
    cli: Any,
    tmp_path: Path,
    cloud: str,
    *extra: str,
    trainer: tuple[str, ...] = (),
    notice_s: float = NOTICE_S,
) -> Any:
    ckpt = tmp_path / "ckpt"
    ckpt.mkdir()
    progress = tmp_path / "progress.log"
    journal = tmp_path / "journal.sqlite3"
    with serve(cloud) as (url, state):
        armer = arm_after_first_checkpoint(ckpt, state, notice_s)
        result = cli(
            "supervise",
            "--cloud",
            cloud,
            "--metadata-url",
            url,
            "--checkpoint-dir",
            str(ckpt),
            "--pattern",
            "checkpoint-*",
            *FAST,
            "--notice-s",
            str(NOTICE_S),
            "--journal",
            str(journal),
            "--json",
            *extra,
            "--",
            *trainer_cmd(ckpt, progress, *trainer),
        )
        armer.join(timeout=5)
    return result, state, journal, progress


@pytest.mark.parametrize("cloud", ["aws", "gcp", "azure", "alibaba", "tencent", "volcengine"])
def test_notice_mid_run_gets_a_checkpoint_out_in_time(cli: Any, tmp_path: Path, cloud: str) -> None:
    result, state, journal, progress = _run(cli, tmp_path, cloud)
    assert result.code == 75, result.err
    assert state.armed_after >= 1  # polled while the service said "no notice" (404, FALSE, [])
    out = result.json()
    assert out["outcome"] == "preempted"
    assert out["checkpoint_on_notice"] is True
    evs = events(journal, out["job"])
    (notice,) = kinds(evs, "notice")
    deadline = iso(notice.data["deadline"])
    on_notice = [e for e in kinds(evs, "checkpoint") if e.data["on_notice"]]
    assert on_notice, "the checkpoint written on the notice was not recorded"
    assert on_notice[0].t <= deadline.timestamp()
    assert on_notice[0].t >= notice.t
    # the periodic checkpoint before the notice was recorded too
    assert any(not e.data["on_notice"] for e in kinds(evs, "checkpoint"))
    # the trainer got SIGTERM (the default signal) and saved
    (sig,) = kinds(evs, "signal")
    assert sig.data["signal"] == "SIGTERM"
    assert "saved-on-term" in progress.read_text()
    # nothing left running
    (start,) = kinds(evs, "child_start")
    assert not alive(start.data["pid"])
    assert kinds(evs, "run_end")[0].data["outcome"] == "preempted"
    if cloud in CLOUD_CHECKS:
        CLOUD_CHECKS[cloud](state, evs)
    if cloud == "gcp":  # no time in the reply: detection + the notice length
        assert (
            abs(
                (deadline - dt.datetime.fromtimestamp(notice.t, dt.timezone.utc)).total_seconds()
                - NOTICE_S
            )
            < 0.5
        )
    else:  # the reply's own time, whatever its format (Tencent: UTC+8 without a zone)
        assert deadline == state.deadline


def _check_aws(state: Any, evs: list[Any]) -> None:
    """IMDSv2: a token PUT first, then every GET carries the token; rebalance is polled too."""
    puts = [r for r in state.requests if r.method == "PUT"]
    gets = [r for r in state.requests if r.method == "GET"]
    assert puts and puts[0].path == "/latest/api/token"
    assert puts[0].headers["x-aws-ec2-metadata-token-ttl-seconds"] == "21600"
    assert gets and all(g.headers.get("x-aws-ec2-metadata-token") == TOKEN for g in gets)
    assert state.requests.index(puts[0]) < state.requests.index(gets[0])
    assert "/latest/meta-data/events/recommendations/rebalance" in {g.path for g in gets}


def _check_azure(state: Any, evs: list[Any]) -> None:
    """The Preempt event is acknowledged once, with its EventId, after the checkpoint."""
    posts = [r for r in state.requests if r.method == "POST"]
    assert len(posts) == 1
    assert json.loads(posts[0].body) == {
        "StartRequests": [{"EventId": "602d9444-d2cd-49c7-8624-8643e7171297"}]
    }
    assert posts[0].headers["metadata"] == "true"
    (ack,) = kinds(evs, "ack")
    assert ack.data["status"] == 200
    on_notice = [e for e in kinds(evs, "checkpoint") if e.data["on_notice"]]
    assert on_notice[0].t <= ack.t  # acknowledged only once the checkpoint was safe


def _check_headers(name: str, value: str) -> Any:
    def check(state: Any, evs: list[Any]) -> None:
        assert state.requests and all(r.headers.get(name) == value for r in state.requests)

    return check


CLOUD_CHECKS = {
    "aws": _check_aws,
    "azure": _check_azure,
    "gcp": _check_headers("metadata-flavor", "Google"),
}


def test_usr1_checkpoint_then_the_group_is_killed(cli: Any, tmp_path: Path) -> None:
    """A trainer that saves on SIGUSR1 and ignores SIGTERM is killed after its checkpoint."""
    result, _state, journal, progress = _run(
        cli,
        tmp_path,
        "aws",
        "--signal",
        "SIGUSR1",
        trainer=("--ignore-term", "--grandchild", str(tmp_path / "gc.pid")),
        notice_s=1.0,
    )
    assert result.code == 75
    evs = events(journal, result.json()["job"])
    assert kinds(evs, "signal")[0].data["signal"] == "SIGUSR1"
    assert any(e.data["on_notice"] for e in kinds(evs, "checkpoint"))
    exits = kinds(evs, "child_exit")
    assert exits[-1].data["code"] == 128 + 9  # SIGKILL: it ignored SIGTERM
    assert exits[-1].t <= iso(kinds(evs, "notice")[0].data["deadline"]).timestamp() + 0.5
    grandchild = int((tmp_path / "gc.pid").read_text())
    assert not alive(grandchild)
    assert "saved-on-term" not in progress.read_text()


def test_on_notice_command_replaces_the_signal(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--on-notice runs a shell command with the notice's details; here it asks for a save."""
    hook = 'cp "$GPUWISE_NOTICE_FILE" "$HOOK_OUT" && kill -USR1 "$GPUWISE_CHILD_PID"'
    out_file = tmp_path / "notice.json"
    monkeypatch.setenv("HOOK_OUT", str(out_file))
    result, _state, journal, _p = _run(cli, tmp_path, "gcp", "--on-notice", hook, notice_s=1.5)
    assert result.code == 75, result.err
    evs = events(journal, result.json()["job"])
    (ran,) = kinds(evs, "on_notice")
    assert ran.data["code"] == 0
    assert not kinds(evs, "signal")  # no --signal was sent
    assert any(e.data["on_notice"] for e in kinds(evs, "checkpoint"))
    written = json.loads(out_file.read_text())
    assert written["cloud"] == "gcp"
    assert written["deadline"] == kinds(evs, "notice")[0].data["deadline"]
