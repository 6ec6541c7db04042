"""The `watch`, `record` and `runs` commands end to end (fake NVML in-process, real children)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.monitor.fake_nvml import fake_generation

PY = sys.executable


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("record",), "--"),
        (("record", "--"), "--"),
        (("record", "--interval", "0", "--", "true"), "--interval"),
        (("record", "--interval", "-1", "--", "true"), "--interval"),
        (("watch", "--interval", "0"), "--interval"),
        (("watch", "--count", "0"), "--count"),
        (("record", "--import", "x.csv", "--", "true"), "--import"),
        (("record", "--tariff", "nowhere", "--", "true"), "nowhere"),
        (("runs", "show", "5"), "gpuwise record"),
        (("runs", "--limit", "0"), "--limit"),
    ],
)
def test_bad_input_is_one_line_exit_2(cli: Any, args: tuple[str, ...], needle: str) -> None:
    r = cli(*args)
    assert r.code == 2, r.err
    assert r.err.count("\n") == 1 and needle in r.err and "Traceback" not in r.err


def test_unwritable_data_dir(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    monkeypatch.setenv("GPUWISE_STATE_DIR", str(blocker / "state"))
    r = cli("record", "--", PY, "-c", "pass")
    assert r.code == 2 and "GPUWISE_STATE_DIR" in r.err and r.err.count("\n") == 1


def test_watch_json_lines(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = fake_generation("535-mig", monkeypatch)
    fake.gpus[0].memory_used = int(fake.gpus[0].memory_total * 0.97)  # type: ignore[operator]
    r = cli("watch", "--json", "--count", "2", "--interval", "0.05")
    assert r.code == 0, r.err
    lines = [json.loads(x) for x in r.out.splitlines()]
    assert len(lines) == 2
    g = lines[0]["gpus"][0]
    assert g["name"] == "NVIDIA A100-SXM4-80GB" and g["utilization_pct"] is None
    assert lines[0]["sources"]["nvidia"] == "ok" and lines[0]["host"]["memory_total_bytes"] > 0
    assert [a["key"] for a in lines[0]["alerts"]] == ["monitor.warn_memory"]


def test_watch_table_shows_na_and_warnings(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = fake_generation("535-mig", monkeypatch)
    fake.gpus[0].throttle_mask = 0x40  # hw_thermal_slowdown
    r = cli("watch", "--count", "1")
    assert r.code == 0, r.err
    assert "A100-SXM4-80GB" in r.out and "N/A" in r.out  # the name may wrap
    assert "hw_thermal_slowdown" in r.out and "heat or power" in r.out


def test_watch_in_chinese(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_generation("590", monkeypatch)
    r = cli("--lang", "zh", "watch", "--count", "1")
    assert r.code == 0 and "显存" in r.out and "主机" in r.out


def test_record_with_estimate_cost_and_runs(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_generation("590", monkeypatch)
    r = cli(
        "record",
        "--name",
        "demo",
        "--interval",
        "0.1",
        "--model",
        "qwen2.5:7b",
        "--mode",
        "inference",
        "--tariff",
        "cn-residential",
        "--currency",
        "CNY",
        "--",
        PY,
        "-c",
        "import time; time.sleep(0.4)",
    )
    assert r.code == 0, r.err
    assert "Run #1 demo" in r.err and "Peaks per GPU" in r.err and "Estimate for" in r.err
    assert "cn-residential" in r.err and "CNY" in r.err
    s = json.loads(cli("runs", "show", "1", "--json").out)
    assert s["run"]["name"] == "demo" and s["estimate"]["model"].startswith("qwen2.5")
    assert s["estimate"]["measured_kind"] in ("device", "process", "total")
    assert s["cost"]["currency"] in ("CNY", "USD")  # runs show uses its own --currency
    listing = cli("runs")
    assert listing.code == 0 and "demo" in listing.out and "finished" in listing.out


def test_runs_show_chart_csv_and_no_overwrite(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_generation("590", monkeypatch)
    assert (
        cli("record", "--interval", "0.1", "--", PY, "-c", "import time; time.sleep(0.3)").code == 0
    )
    png, svg, csv = tmp_path / "run.png", tmp_path / "run.svg", tmp_path / "run.csv"
    r = cli("runs", "show", "1", "--chart", str(png), "--csv", str(csv))
    assert r.code == 0, r.err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = csv.read_text().splitlines()
    assert rows[0].startswith("t,elapsed_s,span_s") and len(rows) >= 3
    assert cli("runs", "show", "1", "--chart", str(svg)).code == 0
    assert svg.read_text().lstrip().startswith("<?xml")
    again = cli("runs", "show", "1", "--chart", str(png))
    assert again.code == 2 and "--force" in again.err
    forced = cli("runs", "show", "1", "--chart", str(png), "--force")
    assert forced.code == 0 and (tmp_path / "run.png.bak").exists()
    assert cli("runs", "show", "1", "--chart", str(tmp_path / "run.gif")).code == 2
    stdout_csv = cli("runs", "show", "1", "--csv", "-")
    assert stdout_csv.out.startswith("t,elapsed_s") and "Run #1" in stdout_csv.err


def test_runs_show_in_chinese_with_chart(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_generation("590", monkeypatch)
    assert cli("record", "--interval", "0.1", "--", PY, "-c", "pass").code == 0
    r = cli("--lang", "zh", "runs", "show", "1", "--chart", str(tmp_path / "c.png"))
    assert r.code == 0 and "运行 #1" in r.out and (tmp_path / "c.png").exists()


def test_record_passes_the_exit_code_through_the_cli(cli: Any) -> None:
    r = cli("record", "--interval", "0.1", "--", PY, "-c", "import sys; sys.exit(4)")
    assert r.code == 4
    assert json.loads(cli("runs", "--json").out)[0]["status"] == "failed"


def test_state_dir_is_isolated() -> None:
    assert os.environ["GPUWISE_STATE_DIR"].endswith("state")
