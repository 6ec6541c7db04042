"""Calibration from recorded runs: peak memory vs the recorded estimate → allocator reserve."""

from __future__ import annotations

from typing import Any

import pytest

from gpuwise.calibrate.runs import RunPoint, fit
from gpuwise.monitor.model import GpuReading, Sample
from gpuwise.monitor.paths import store_path
from gpuwise.monitor.store import ProcRow, RunStore

EST = ("estimate", "llama-3.1-8b", "--gpu", "h200", "--mode", "inference", "--json")


def _record(report: dict[str, Any], measured_bytes: int, start: float) -> None:
    """A finished run as `gpuwise record --model …` stores it (one sample, one process)."""
    path = store_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    store = RunStore(path)
    gpus = [{"vendor": "nvidia", "index": 0, "name": "NVIDIA H200", "baseline_used_bytes": 0}]
    run_id = store.create_run(
        "serve", ["python", "serve.py"], "record", 1.0, start, gpus, {"estimate": report}
    )
    reading = GpuReading(vendor="nvidia", index=0, memory_used_bytes=measured_bytes)
    store.add_sample(
        run_id,
        Sample(t=start + 1, gpus=(reading,)),
        1.0,
        [ProcRow("nvidia", 0, 4242, measured_bytes)],
    )
    store.update_run(run_id, ended_at=start + 1, exit_code=0, status="finished")
    store.close()


def test_fit_median_and_errors() -> None:
    pts = [
        RunPoint(i, "transformers", 100, 10, 115, 100 + 10 + r) for i, r in enumerate((20, 25, 90))
    ]
    out = fit(pts)["transformers"]
    assert out["allocator_reserve_fraction"] == pytest.approx(0.25)  # median: robust to the 90
    assert out["mean_abs_error_pct_after"] < out["mean_abs_error_pct_before"]
    assert RunPoint(0, "x", 100, 10, 115, 50).implied_reserve == 0.0  # clipped to the schema


def test_runs_round_trip(cli: Any) -> None:
    assert cli("calibrate", "--runs").code == 2  # nothing recorded yet
    report = cli(*EST).json()
    mem = report["memory"]
    vllm_args = (*EST[:-1], "--engine", "vllm", "--json")
    vllm_before = cli(*vllm_args).json()["memory"]
    allocated, context = mem["allocated_peak_bytes"], mem["breakdown"]["cuda_context"]
    # this machine's allocator keeps 20 % (not the catalog's 5 %) above what PyTorch allocated
    _record(report, int(allocated * 1.20 + context), 1000.0)
    _record(report, int(allocated * 1.22 + context), 2000.0)
    res = cli("calibrate", "--runs", "--json")
    assert res.code == 0, res.err
    fitted = res.json()["engines"]["transformers"]
    assert fitted["allocator_reserve_fraction"] == pytest.approx(0.21, abs=1e-3)
    assert fitted["runs"] == [2, 1]
    assert fitted["mean_abs_error_pct_after"] < 1 < fitted["mean_abs_error_pct_before"]

    after = cli(*EST).json()["memory"]
    assert after["breakdown"]["allocator_reserve"] == pytest.approx(allocated * 0.21, rel=1e-3)
    shown = cli("calibrate", "--show", "--json").json()["engines"]
    assert [e["engine"] for e in shown] == ["transformers"]
    assert shown[0]["source_title"].startswith("measured on this machine")
    assert "allocator reserve 0.210" in cli("calibrate", "--show").out
    assert cli(*vllm_args).json()["memory"] == vllm_before  # another engine: not refitted

    assert cli("calibrate", "--reset").code == 0
    assert cli(*EST).json()["memory"] == mem
