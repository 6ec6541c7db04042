"""Calibration from recorded runs' tokens: measured decode vs the estimate → the engine's decode
share on this GPU, which `estimate` then uses (and `--reset` removes)."""

from __future__ import annotations

from typing import Any

import pytest

from gpuwise.cli.cmd_record import _estimate
from gpuwise.monitor.paths import store_path
from gpuwise.monitor.store import RunStore
from gpuwise.monitor.tokens import TokenTotals, advance
from gpuwise.service.job import JobOptions

MODEL, GPU = "llama-3.1-8b", "h200"
EST = ("estimate", MODEL, "--gpu", GPU, "--engine", "vllm", "--gen-tokens", "256", "--json")


def _job(**changes: Any) -> JobOptions:
    """The options `gpuwise record` passes when none are given (the typer defaults)."""
    base: dict[str, Any] = dict(
        mode="inference", quant=None, batch=1, seq_len=2048, context=None, prompt_tokens=None,
        gen_tokens=256, kv_dtype=None, optimizer="adamw", precision="mixed-bf16",
        grad_checkpointing=True, optimizer_in_backward=False, attention=None, lora_rank=16,
        lora_targets="all-linear", train_modules="", gpus=1, strategy="none", engine="vllm",
    )  # fmt: skip
    return JobOptions(**{**base, **changes})


def _record(estimate: dict[str, Any], decode_tok_s: float, running: float, start: float) -> int:
    """A finished run as `record --model … --tokens-from …` stores it: 100 requests of 256 tokens,
    read twice."""
    tokens = TokenTotals(url="http://127.0.0.1:8000/metrics")
    intervals = 100 * 255
    zero = {"engine": "vllm", "running": running}
    after = {
        **zero,
        "generated_tokens": 100 * 256.0,
        "decode_tokens": float(intervals),
        "decode_seconds": intervals / decode_tok_s,
    }
    advance(tokens, {**zero, "generated_tokens": 0.0, "decode_tokens": 0.0, "decode_seconds": 0.0},
            start)  # fmt: skip
    advance(tokens, after, start + 300)
    path = store_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    store = RunStore(path)
    gpus = [{"vendor": "nvidia", "index": 0, "name": "NVIDIA H200", "baseline_used_bytes": 0}]
    options = {"estimate": estimate, "tokens": tokens.as_dict()}
    run_id = store.create_run("bench", ["python", "load.py"], "record", 1.0, start, gpus, options)
    store.update_run(run_id, ended_at=start + 300, exit_code=0, status="finished")
    store.close()
    return run_id


def test_decode_round_trip(cli: Any) -> None:
    estimate = _estimate(MODEL, GPU, _job())
    assert estimate["job"]["gpu"] == GPU and "speed" in estimate
    before = cli(*EST).json()["speed"]["decode_tokens_per_s"]
    assert before == pytest.approx(estimate["speed"]["decode_tokens_per_s"])
    measured = before * 0.8  # this machine's vLLM decodes 20 % slower than the catalog says
    _record(estimate, measured * 0.99, 1, 1000.0)
    _record(estimate, measured * 1.01, 1, 2000.0)
    _record(estimate, measured * 3.0, 24, 3000.0)  # batched: not comparable, left out
    res = cli("calibrate", "--runs", "--json")
    assert res.code == 0, res.err
    decode = res.json()["decode"]
    (fit,) = decode["fitted"]
    assert (fit["gpu"], fit["engine"], sorted(fit["runs"])) == (GPU, "vllm", [1, 2])
    assert fit["mean_abs_error_pct_before"] == pytest.approx(25.0, abs=1.5)
    assert fit["mean_abs_error_pct_after"] < 1.5
    assert decode["unfit"] == []

    after = cli(*EST).json()["speed"]["decode_tokens_per_s"]
    assert after == pytest.approx(measured, rel=0.01)
    other = ("estimate", MODEL, "--gpu", GPU, "--engine", "llama.cpp", "--json")
    shown = cli("calibrate", "--show", "--json").json()["entries"]
    assert any(e.get("engine") == "vllm" and e.get("gpu") == GPU for e in shown)
    out = cli("calibrate", "--runs").out
    assert "decode share" in out and "vllm" in out
    llama_after = cli(*other).json()["speed"]["decode_tokens_per_s"]
    assert cli("calibrate", "--reset").code == 0
    assert cli(*EST).json()["speed"]["decode_tokens_per_s"] == pytest.approx(before)
    assert cli(*other).json()["speed"]["decode_tokens_per_s"] == pytest.approx(llama_after)


def test_faster_than_the_model_allows_is_reported_not_written(cli: Any) -> None:
    estimate = _estimate(MODEL, GPU, _job())
    before = estimate["speed"]["decode_tokens_per_s"]
    _record(estimate, before * 5, 1, 1000.0)  # 5x: more than the card's full bandwidth
    res = cli("calibrate", "--runs", "--json")
    assert res.code == 0, res.err
    decode = res.json()["decode"]
    assert decode["fitted"] == [] and decode["unfit"][0]["run"] == 1
    assert decode["unfit"][0]["max_tokens_per_s"] < before * 5
    assert cli(*EST).json()["speed"]["decode_tokens_per_s"] == pytest.approx(before)
    assert "more than the model allows" in cli("calibrate", "--runs").out
