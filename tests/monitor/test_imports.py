"""`record --import`: nvidia-smi CSV logs and dmon output recorded by others (cited fixtures)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpuwise.errors import UserError
from gpuwise.monitor.imports import detect_kind, parse_dmon, parse_log, parse_query_csv
from tests.probe.support import FIXTURES

LOGS = FIXTURES / "nvidia-smi-logs"
MIB = 1024 * 1024


def test_dmon_default_columns_one_gpu() -> None:
    log = parse_dmon((LOGS / "dmon-default-dcgm-232.txt").read_text(), 1.0, end_t=100.0)
    assert log.kind == "nvidia-smi-dmon" and len(log.samples) == 4
    assert [s.t for s in log.samples] == [97.0, 98.0, 99.0, 100.0]  # spaced by the interval
    powers = [s.gpus[0].power_w for s in log.samples]
    assert powers == [86.0, 267.0, 280.0, 284.0]
    g = log.samples[1].gpus[0]
    assert g.temperature_c == 39.0 and g.utilization_pct == 100.0 and g.sm_clock_mhz == 1710.0
    assert g.memory_used_bytes is None  # no fb column without -s m: N/A, not 0


def test_dmon_old_format_four_gpus_with_fb() -> None:
    log = parse_dmon((LOGS / "dmon-pucvmet-4gpu-deepspeech-178.txt").read_text(), 1.0, 10.0)
    (sample,) = log.samples
    assert [g.index for g in sample.gpus] == [0, 1, 2, 3]
    assert sample.gpus[3].memory_used_bytes == 11660 * MIB and sample.gpus[0].temperature_c == 83.0


def test_query_csv_with_units_in_values() -> None:
    log = parse_query_csv((LOGS / "query-csv-2gpu-bpytop-26.csv").read_text(), 5.0, 50.0)
    (sample,) = log.samples
    a, b = sample.gpus
    assert a.name == "GeForce GTX 1080 Ti" and a.memory_used_bytes == 2856 * MIB
    assert a.memory_total_bytes == 11175 * MIB and a.power_w == 106.56 and a.utilization_pct == 36.0
    assert b.index == 1 and b.temperature_c == 49.0 and sample.t == 50.0


def test_query_csv_timestamps_nounits_and_na() -> None:
    # Synthetic log in the documented format of `nvidia-smi --query-gpu=... --format=csv,nounits`
    # (timestamp "YYYY/MM/DD HH:MM:SS.mmm", local time), written for this test.
    text = (
        "timestamp, index, name, memory.used [MiB], memory.total [MiB], power.draw [W],"
        " temperature.gpu\n"
        "2025/05/22 09:42:33.587, 0, Tesla V100-SXM2-32GB, 1, 32768, [N/A], 40\n"
        "2025/05/22 09:42:33.590, 1, Tesla V100-SXM2-32GB, 3, 32768, 55.5, 41\n"
        "2025/05/22 09:42:38.588, 0, Tesla V100-SXM2-32GB, 4000, 32768, 250.25, 60\n"
        "2025/05/22 09:42:38.589, 1, Tesla V100-SXM2-32GB, 5000, 32768, 260, 61\n"
    )
    log = parse_log(text, 5.0, 0.0)
    first, second = log.samples
    assert second.t - first.t == pytest.approx(5.001, abs=1e-3)
    assert first.gpus[0].power_w is None and first.gpus[1].power_w == 55.5
    assert second.gpus[1].memory_used_bytes == 5000 * MIB


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("hello world\n", "import.unknown_format"),
        ("Tesla T4, 15360 MiB\n", "import.unknown_format"),
        ("# gpu pwr\n# Idx W\n", "import.empty"),
    ],
)
def test_bad_logs_are_clear_errors(text: str, key: str) -> None:
    with pytest.raises(UserError) as info:
        parse_log(text, 1.0, 0.0)
    assert info.value.key == key


def test_noheader_csv_is_refused() -> None:
    with pytest.raises(UserError) as info:
        parse_query_csv("0, Tesla T4, 15360\n", 1.0, 0.0)
    assert info.value.key == "import.csv_no_header"


def test_detect_kind() -> None:
    assert detect_kind((LOGS / "dmon-default-dcgm-232.txt").read_text()) == "dmon"
    assert detect_kind((LOGS / "query-csv-2gpu-bpytop-26.csv").read_text()) == "csv"


def test_import_through_the_cli(cli: Any, tmp_path: Path) -> None:
    r = cli(
        "record",
        "--import",
        str(LOGS / "dmon-default-dcgm-232.txt"),
        "--interval",
        "2",
        "--json",
        "--tariff",
        "1.0",
        "--currency",
        "CNY",
    )
    assert r.code == 0, r.err
    s = r.json()
    g = s["gpus"][0]
    assert s["run"]["source"] == "import:nvidia-smi-dmon" and s["run"]["status"] == "imported"
    assert g["peak_power_w"] == 284.0 and g["energy_method"] == "integral"
    assert s["energy_kwh"] == pytest.approx((86 + 267 + 280 + 284) * 2 / 3.6e6)
    assert s["cost"]["amount"] == pytest.approx(s["energy_kwh"] * 1.0)
    listing = cli("runs", "--json").json()
    assert listing[0]["name"] == "dmon-default-dcgm-232.txt"
