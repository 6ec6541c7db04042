"""The run store (WAL, one commit per sample, downsampling) and the pure summary functions."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from gpuwise.errors import UserError
from gpuwise.monitor.downsample import GPU_SPEC, merge_rows
from gpuwise.monitor.model import GpuProcess, GpuReading, HostReading, Sample
from gpuwise.monitor.report import run_summary
from gpuwise.monitor.store import ProcRow, RunStore, TreeTotals, effective_status
from gpuwise.monitor.summary import (
    TariffPrice,
    gpu_energy,
    integral_energy_j,
    summarise,
    with_cost,
    with_estimate,
)

GIB = 1024**3


def reading(
    used: float, power: float | None, energy: float | None, temp: float = 50.0
) -> GpuReading:
    return GpuReading(
        vendor="nvidia",
        index=0,
        name="Fake",
        memory_used_bytes=int(used * GIB),
        memory_total_bytes=80 * GIB,
        power_w=power,
        energy_j=energy,
        temperature_c=temp,
        throttle_reasons=("sw_power_cap",) if power and power > 390 else (),
        processes=(GpuProcess(4242, int(used * GIB)),),
    )


def make_run(store: RunStore, start: float = 1000.0) -> int:
    gpus = [
        {
            "vendor": "nvidia",
            "index": 0,
            "name": "Fake",
            "memory_total_bytes": 80 * GIB,
            "baseline_used_bytes": 2 * GIB,
            "energy_start_j": 5000.0,
        }
    ]
    return store.create_run("t", ["python", "x.py"], "record", 1.0, start, gpus)


def test_wal_and_samples_survive_reopen(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = make_run(store)
    for k in range(3):
        s = Sample(
            t=1001.0 + k,
            gpus=(reading(10 + k, 300.0, 5000.0 + 300 * (k + 1)),),
            host=HostReading(cpu_percent=50.0, memory_used_bytes=GIB),
        )
        store.add_sample(
            run_id,
            s,
            1.0,
            [ProcRow("nvidia", 0, 4242, (10 + k) * GIB)],
            TreeTotals(2, 300 * 2**20, 90.0),
            [("nvidia", 0, "xid", "79")],
        )
    mode = store.conn.execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    other = sqlite3.connect(tmp_path / "runs.sqlite")  # another reader sees the commits
    assert other.execute("SELECT COUNT(*) FROM gpu_samples").fetchone()[0] == 3
    other.close()
    store.close()
    again = RunStore(tmp_path / "runs.sqlite", create=False)
    s = run_summary(again, run_id)
    g = s["gpus"][0]
    assert g["peak_used_bytes"] == 12 * GIB and g["peak_run_bytes"] == 10 * GIB
    assert g["energy_j"] == pytest.approx(900.0) and g["energy_method"] == "counter"
    assert s["processes"] == [
        {"vendor": "nvidia", "gpu": 0, "pid": 4242, "peak_gpu_memory_bytes": 12 * GIB}
    ]
    assert s["host"]["peak_tree_rss_bytes"] == 300 * 2**20 and s["xid"][0]["xid"] == 79


def test_compaction_keeps_peaks_energy_and_integral(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = make_run(store, start=0.0)
    powers = [100.0, 400.0, 200.0, 300.0] * 30  # 120 samples, one per second
    for k, p in enumerate(powers):
        used = 20.0 if k == 77 else 10.0  # one spike
        store.add_sample(run_id, Sample(t=k + 1.0, gpus=(reading(used, p, 5000.0 + k),)), 1.0)
    rows = store.rows("gpu_samples", run_id)
    before = integral_energy_j(rows)
    removed = store.compact(run_id, before_t=100.0, start_t=0.0, bucket_s=60.0)
    after_rows = store.rows("gpu_samples", run_id)
    assert removed > 90 and len(after_rows) == 120 - removed
    assert integral_energy_j(after_rows) == pytest.approx(before)
    s = run_summary(store, run_id)["gpus"][0]
    assert s["peak_used_bytes"] == 20 * GIB and s["peak_power_w"] == 400.0
    assert s["throttle"] == ["sw_power_cap"]
    assert s["energy_j"] == pytest.approx(119.0)  # counter: last − start, bucket kept the last


def test_merge_rows_weights_by_span() -> None:
    rows = [
        {
            "t": 0,
            "span_s": 1.0,
            "n": 1,
            "vendor": "nvidia",
            "gpu": 0,
            "memory_used_bytes": 10,
            "memory_used_max_bytes": 10,
            "utilization_pct": None,
            "temperature_c": 40,
            "temperature_max_c": 40,
            "power_w": 100,
            "power_max_w": 100,
            "energy_j": 1,
            "sm_clock_mhz": None,
            "throttle": "a",
        },
        {
            "t": 1,
            "span_s": 3.0,
            "n": 1,
            "vendor": "nvidia",
            "gpu": 0,
            "memory_used_bytes": 30,
            "memory_used_max_bytes": 50,
            "utilization_pct": None,
            "temperature_c": 60,
            "temperature_max_c": 70,
            "power_w": 300,
            "power_max_w": 350,
            "energy_j": 2,
            "sm_clock_mhz": None,
            "throttle": "b",
        },
    ]
    m = merge_rows(rows, GPU_SPEC)
    assert m["power_w"] == 250.0 and m["power_max_w"] == 350 and m["span_s"] == 4.0
    assert m["memory_used_max_bytes"] == 50 and m["energy_j"] == 2 and m["throttle"] == "a,b"
    assert m["utilization_pct"] is None and m["t"] == 0 and m["n"] == 2


def test_energy_falls_back_to_integral() -> None:
    rows = [
        {"energy_j": 100.0, "power_w": 200.0, "span_s": 0.2},
        {"energy_j": 100.0, "power_w": 200.0, "span_s": 0.2},
    ]
    assert gpu_energy(rows, 100.0, duration_s=0.4) == (pytest.approx(80.0), "integral")  # too short
    assert gpu_energy(rows, 100.0, duration_s=5.0) == (
        pytest.approx(80.0),
        "integral",
    )  # counter did not move
    assert gpu_energy([{"energy_j": None, "power_w": None, "span_s": 1.0}], None, 5.0) == (
        None,
        None,
    )


def test_cost_and_estimate_beside_measurement(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = make_run(store)
    store.add_sample(
        run_id,
        Sample(t=1000.0 + 3600, gpus=(reading(18, 400.0, 5000.0 + 1.44e6),)),
        3600.0,
        [ProcRow("nvidia", 0, 4242, 16 * GIB)],
    )
    store.update_run(run_id, ended_at=1000.0 + 3600, exit_code=0, status="finished")
    s = summarise(
        store.run(run_id), store.rows("gpu_samples", run_id), store.rows("proc_samples", run_id)
    )
    assert s["energy_kwh"] == pytest.approx(0.4)  # 1.44e6 J over the run = 0.4 kWh
    with_cost(s, TariffPrice(0.5, "CNY", "cn-x", "https://example.org", "2025-01-01", 0.5, "CNY"))
    assert s["cost"]["amount"] == pytest.approx(0.2) and s["cost"]["partial"] is False
    estimate = {
        "model": {"id": "m"},
        "inputs": {"mode": "lora"},
        "memory": {"device_total_bytes": 20 * GIB, "low_bytes": 18 * GIB, "high_bytes": 22 * GIB},
    }
    with_estimate(s, estimate)
    e = s["estimate"]
    assert e["measured_bytes"] == 16 * GIB and e["measured_kind"] == "process"
    assert e["error_pct"] == pytest.approx(25.0)


def test_unwritable_state_dir_is_one_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(UserError) as info:
        RunStore(blocker / "runs.sqlite")
    assert info.value.key == "monitor.store_unwritable"


def test_missing_store_lists_nothing_and_unknown_run_is_an_error(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "none.sqlite", create=False)
    assert store.runs() == [] and not (tmp_path / "none.sqlite").exists()
    full = RunStore(tmp_path / "runs.sqlite")
    with pytest.raises(UserError) as info:
        full.run(99)
    assert info.value.key == "runs.unknown"


def test_a_running_run_whose_recorder_died_is_interrupted(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = make_run(store)
    assert effective_status(store.run(run_id)) == "running"  # this process is the recorder
    store.conn.execute("UPDATE runs SET recorder_pid = 999999999 WHERE id = ?", (run_id,))
    store.conn.commit()
    assert effective_status(store.run(run_id)) == "interrupted"
