"""Calibration round trip: a bench result → the managed override → estimate uses it → reset."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpuwise.catalog import files as F

EST = ("estimate", "llama-3.1-8b", "--gpu", "h200", "--mode", "inference", "--json")
TRAIN = (
    "estimate",
    "llama-3.1-8b",
    "--gpu",
    "h200",
    "--mode",
    "lora",
    "--train-tokens",
    "1e7",
    "--json",
)


def _result(bf16_tflops: float, copy_gbps: float, decode_gbps: float, **extra: Any) -> dict:
    """A GPU bench result as `gpuwise bench --json` writes it (synthetic figures)."""
    best = {"shape": [8192, 8192, 8192], "median_flops": bf16_tflops * 1e12, "spread": 0.01}
    return {
        "schema": 1,
        "smoke": False,
        "gpu": "h200",
        "plan": "gpu-quick",
        "decode_model": "llama-3.1-8b",
        "device": {
            "kind": "cuda",
            "index": 0,
            "name": "NVIDIA H200",
            "count": 1,
            "build": "torch 2.13.0 CUDA 12.8",
        },
        "results": {
            "matmul": [{"dtype": "bf16", "status": "ok", "best": best, "shapes": [best]}],
            "memory_copy": {"status": "ok", "median_bps": copy_gbps * 1e9, "buffer_bytes": 2**30},
            "decode_stream": {"status": "ok", "median_bps": decode_gbps * 1e9, "dtype": "bf16"},
            "host_device": {"status": "ok", "h2d_pinned_bps": 50e9},
            "allreduce": {"status": "ok", "ranks": 1, "sizes": []},
        },
        **extra,
    }


def _write(tmp_path: Path, data: dict) -> str:
    path = tmp_path / "bench.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_round_trip_moves_estimate_to_the_measurement(cli: Any, tmp_path: Path) -> None:
    before = cli(*EST).json()["speed"]
    train_before = cli(*TRAIN).json()["speed"]
    # 600 of 989 TFLOPS, copy 2400 of 4800 GB/s, decode stream 2000 of 4800 GB/s
    res = cli("calibrate", "--from", _write(tmp_path, _result(600, 2400, 2000)), "--json")
    assert res.code == 0, res.err
    written = res.json()
    pairs = {(e["metric"], e["engine"]) for e in written["entries"]}
    assert pairs == {
        ("matmul", "any"),
        ("decode_bandwidth", "transformers"),
        ("decode_bandwidth", "any"),
    }
    text = (F.override_dir() / "gpuwise-calibration.toml").read_text(encoding="utf-8")
    assert text.startswith("# gpuwise-managed calibration")
    assert "measured on this machine" in text

    after = cli(*EST).json()["speed"]
    factors = after["factors"]
    assert factors["matmul_ceiling"] == pytest.approx(600 / 989, abs=1e-3)
    assert factors["bandwidth_fraction"] == pytest.approx(2000 / 4800, abs=1e-3)
    assert any(s.startswith("measured-h200-") for s in factors["sources"])
    # decode is bandwidth-bound: tokens/s moves with the bandwidth share (overheads aside)
    ratio = after["decode_tokens_per_s"] / before["decode_tokens_per_s"]
    share = (2000 / 4800) / before["factors"]["bandwidth_fraction"]
    assert ratio == pytest.approx(share, rel=0.1) and ratio != pytest.approx(1.0, abs=1e-4)
    train_after = cli(*TRAIN).json()["speed"]
    assert train_after["factors"]["mfu"] < train_before["factors"]["mfu"]  # 0.607 < 0.80 ceiling

    table = cli("estimate", "llama-3.1-8b", "--gpu", "h200", "--mode", "inference")
    assert "your bench of" in table.out
    other = cli("estimate", "llama-3.1-8b", "--gpu", "h100-sxm", "--mode", "inference", "--json")
    assert not any(s.startswith("measured-") for s in other.json()["speed"]["factors"]["sources"])

    shown = cli("calibrate", "--show", "--json").json()
    assert len(shown["entries"]) == 3
    assert all(e["source_title"].startswith("measured on this machine") for e in shown["entries"])

    assert cli("calibrate", "--reset").code == 0
    assert not (F.override_dir() / "gpuwise-calibration.toml").exists()
    assert cli(*EST).json()["speed"] == before


def test_copy_share_caps_other_engines(cli: Any, tmp_path: Path) -> None:
    """A card that streams only 30 % of its datasheet caps vLLM's higher fitted share."""
    vllm = (*EST[:-1], "--engine", "vllm", "--json")
    before = cli(*vllm).json()["speed"]["factors"]["bandwidth_fraction"]
    assert before > 0.3
    assert cli("calibrate", "--from", _write(tmp_path, _result(700, 1440, 1300))).code == 0
    assert cli(*vllm).json()["speed"]["factors"]["bandwidth_fraction"] == pytest.approx(0.3)


def test_refusals(cli: Any, tmp_path: Path) -> None:
    smoke = cli("calibrate", "--from", _write(tmp_path, _result(1, 1, 1, smoke=True)))
    assert smoke.code == 2 and "smoke run" in smoke.err
    above = cli("calibrate", "--from", _write(tmp_path, _result(2000, 9000, 9000)))
    assert above.code == 2 and "above the datasheet" in above.err
    unknown = _result(600, 2400, 2000)
    unknown["gpu"] = None
    res = cli("calibrate", "--from", _write(tmp_path, unknown))
    assert res.code == 2 and "--gpu" in res.err
    res = cli("calibrate", "--from", _write(tmp_path, unknown), "--gpu", "h200")
    assert res.code == 0
    bad = tmp_path / "bad.json"
    bad.write_text('{"x": 1}', encoding="utf-8")
    assert cli("calibrate", "--from", str(bad)).code == 2
    assert cli("calibrate", "--show", "--reset").code == 2


def test_never_touches_user_files(cli: Any, tmp_path: Path) -> None:
    folder = F.override_dir()
    folder.mkdir(parents=True)
    mine = folder / "gpuwise-calibration.toml"
    mine.write_text("# my own notes\n", encoding="utf-8")
    res = cli("calibrate", "--from", _write(tmp_path, _result(600, 2400, 2000)))
    assert res.code == 2 and "not written by gpuwise calibrate" in res.err
    assert cli("calibrate", "--reset").code == 2
    assert mine.read_text(encoding="utf-8") == "# my own notes\n"
    mine.unlink()
    hand = folder / "my-measurements.toml"
    hand.write_text(
        '[sources.my-bench]\nurl = "file:notes.txt"\nretrieved = 2026-12-01\n\n'
        '[[measured_rate]]\ngpu = "rtx-4090"\nmetric = "matmul"\nfraction = 0.7\n'
        'measured_value = 115.0\ndatasheet_value = 165.2\nunit = "TFLOPS"\n'
        'measured_on = 2026-12-01\nsource = "my-bench"\n',
        encoding="utf-8",
    )
    assert cli("calibrate", "--from", _write(tmp_path, _result(600, 2400, 2000))).code == 0
    assert len(cli("calibrate", "--show", "--json").json()["entries"]) == 4
    assert cli("calibrate", "--reset").code == 0
    assert hand.exists() and len(cli("calibrate", "--show", "--json").json()["entries"]) == 1
    assert cli("calibrate", "--reset").out.startswith("Nothing to reset")


def test_an_override_folder_that_cannot_be_made_is_one_line_not_a_traceback(
    tmp_path: Path,
) -> None:
    """Regression: the managed file was written without catching OSError, so a config folder
    whose `catalog` is a file (or a read-only disk) ended `calibrate` in a traceback."""
    from gpuwise.calibrate import store
    from gpuwise.errors import UserError

    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "catalog").write_text("not a folder", encoding="utf-8")
    with pytest.raises(UserError) as err:
        store.write({}, lambda kind, entry: False, {})
    assert err.value.key == "files.cannot_write"
    assert err.value.params["file"].endswith("gpuwise-calibration.toml")
