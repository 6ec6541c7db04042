"""Restarts: on a new machine from the shared journal, after a failure with backoff, and the budget;
then the report prices what the interruption cost."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

from gpuwise.catalog import load_catalog
from tests.supervise.clouds import serve
from tests.supervise.support import FAST, arm_after_first_checkpoint, events, kinds, trainer_cmd

OFFER = "aws:g4dn.xlarge:spot"


def _price(offer: str) -> float:
    provider, instance, billing = offer.split(":")
    found = next(
        o for o in load_catalog().offers if o.provider == provider and o.instance == instance
    )
    price = found.price(billing)
    assert price is not None
    return price.amount


def test_new_machine_resumes_from_the_shared_journal_and_the_report_prices_it(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = tmp_path / "bucket"  # a mounted bucket or disk both machines see
    ckpt = shared / "ckpt"
    ckpt.mkdir(parents=True)
    journal = shared / "journal.sqlite3"
    progress = shared / "progress.log"
    cmd = trainer_cmd(ckpt, progress, "--steps", "40", "--resume", "{last_checkpoint}")
    common = (
        "--checkpoint-dir",
        str(ckpt),
        "--pattern",
        "checkpoint-*",
        "--journal",
        str(journal),
        "--job",
        "llama-sft",
        *FAST,
    )

    # machine 1: preempted on AWS
    monkeypatch.setenv("GPUWISE_STATE_DIR", str(tmp_path / "machine1"))
    with serve("aws") as (url, state):
        armer = arm_after_first_checkpoint(ckpt, state, 3.0)
        first = cli(
            "supervise",
            "--cloud",
            "aws",
            "--metadata-url",
            url,
            "--offer",
            OFFER,
            *common,
            "--",
            *cmd,
        )
        armer.join(timeout=5)
    assert first.code == 75, first.err
    saved = [e for e in events(journal, "llama-sft") if e.kind == "checkpoint"]
    assert any(e.data["on_notice"] for e in saved)
    newest = max(saved, key=lambda e: e.data["mtime_ns"])  # the newest content saved on machine 1
    step = int(re.sub(r"\D", "", newest.data["name"]))

    # machine 2: a fresh state dir, the same shared journal, --restart
    monkeypatch.setenv("GPUWISE_STATE_DIR", str(tmp_path / "machine2"))
    second = cli("supervise", "--cloud", "none", "--restart", *common, "--json", "--", *cmd)
    assert second.code == 0, second.err
    starts = re.findall(r"start resume=(\d+)", progress.read_text())
    assert starts == [
        "0",
        str(step),
    ]  # first from scratch ({last_checkpoint} dropped), then resumed
    evs = events(journal, "llama-sft")
    argv2 = kinds(evs, "child_start")[-1].data["argv"]
    assert argv2[argv2.index("--resume") + 1] == str(ckpt / newest.data["name"])
    assert "--resume" not in kinds(evs, "child_start")[0].data["argv"]

    report = cli("supervise", "--report", "--journal", str(journal), "--json")
    assert report.code == 0, report.err
    (job,) = report.json()["jobs"]
    assert job["job"] == "llama-sft"
    assert job["runs"] == 2
    assert job["finished"] is True
    assert job["interruptions"] == 1 and job["failures"] == 0
    (stop,) = job["stops"]
    assert stop["cause"] == "preempted" and stop["checkpoint_on_notice"] is True
    assert 0 <= stop["lost_s"] < 1.5  # only the moments after the on-notice checkpoint
    assert stop["restart_s"] > 0
    # priced at the offer recorded by the first run, from the catalog
    price = _price(OFFER)
    assert job["offer"]["price_per_hour"] == price
    expected = (job["lost_s"] + job["restart_s"]) / 3600 * price
    assert job["cost"]["total_cost"] == pytest.approx(expected, rel=1e-3, abs=1e-6)
    plan = job["plan_inputs"]
    # stops round restart_s to 1 ms: a fast restart (50 ms) differs by more than rel=1e-3
    assert plan["restart_min"] == pytest.approx(stop["restart_s"] / 60, rel=1e-3, abs=1e-5)
    # 2 × the mean loss, but never below the 0.1 min `gpuwise cost --checkpoint-min` accepts
    measured = 2 * stop["lost_s"] / 60
    assert plan["checkpoint_min"] == pytest.approx(max(measured, 0.1), rel=1e-3, abs=1e-4)
    # a few seconds of running measure thousands a day: kept to the 1 440 cost accepts
    per_day = 1 / (job["running_s"] / 3600) * 24
    assert plan["spot_interruptions_per_day"] == pytest.approx(min(per_day, 1440), rel=1e-3)
    if per_day > 1440:
        assert "--spot-interruptions-per-day" in {c["flag"] for c in job["plan_clamps"]}
    table = cli("supervise", "--report", "--journal", str(journal))
    assert "llama-sft" in table.out and "--spot-interruptions-per-day" in table.out


def test_a_failing_command_is_restarted_from_its_checkpoint(cli: Any, tmp_path: Path) -> None:
    ckpt = tmp_path / "ckpt"
    ckpt.mkdir()
    progress = tmp_path / "progress.log"
    journal = tmp_path / "j.sqlite3"
    cmd = trainer_cmd(
        ckpt, progress, "--steps", "12", "--fail-once", str(tmp_path / "failed"), "--fail-at", "8"
    )
    r = cli(
        "supervise",
        "--checkpoint-dir",
        str(ckpt),
        "--journal",
        str(journal),
        "--restart",
        "--backoff-s",
        "0",
        "--checkpoint-poll-s",
        "0.05",
        "--json",
        "--",
        *cmd,
    )
    assert r.code == 0, r.err
    assert re.findall(r"start resume=(\d+)", progress.read_text()) == ["0", "5"]
    out = r.json()
    assert out["attempts"] == 2 and out["outcome"] == "completed"
    evs = events(journal, out["job"])
    assert [e.data["code"] for e in kinds(evs, "child_exit")] == [3, 0]
    (restart,) = kinds(evs, "restart")
    assert restart.data["resume"] == str(ckpt / "checkpoint-5")
    assert kinds(evs, "child_start")[1].data["resume"] == str(ckpt / "checkpoint-5")


def test_the_restart_budget_ends_it_with_the_commands_code(cli: Any, tmp_path: Path) -> None:
    journal = tmp_path / "j.sqlite3"
    cmd = [sys.executable, "-c", "import sys; sys.exit(4)"]
    r = cli(
        "supervise",
        "--journal",
        str(journal),
        "--restart",
        "--max-restarts",
        "2",
        "--backoff-s",
        "0",
        "--json",
        "--",
        *cmd,
    )
    assert r.code == 4
    out = r.json()
    assert out["outcome"] == "failed" and out["attempts"] == 3
    evs = events(journal, out["job"])
    assert len(kinds(evs, "child_start")) == 3
    assert len(kinds(evs, "restart")) == 2
