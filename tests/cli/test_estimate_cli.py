"""`gpuwise estimate` and `gpuwise fit` end to end."""

from __future__ import annotations

from pathlib import Path

import pytest


def test_estimate_json_contract(cli) -> None:  # type: ignore[no-untyped-def]
    res = cli("estimate", "qwen2.5:7b", "--gpu", "4090", "--json")
    assert res.code == 0, res.err
    data = res.json()
    mem = data["memory"]
    for key in (
        "allocated_peak_bytes",
        "device_total_bytes",
        "breakdown",
        "low_bytes",
        "high_bytes",
    ):
        assert key in mem
    assert sum(mem["breakdown"].values()) == mem["device_total_bytes"]
    assert data["fits"] is True and data["headroom_bytes"] > 0
    assert data["max_batch"] >= 1 and data["max_context"] >= 4096


def test_estimate_training_flags(cli) -> None:  # type: ignore[no-untyped-def]
    res = cli(
        "estimate",
        "meta-llama/Llama-3.1-8B",
        "--mode",
        "lora",
        "--lora-rank",
        "64",
        "--lora-targets",
        "q,v",
        "--train-modules",
        "embed,lm_head",
        "--batch",
        "2",
        "--seq-len",
        "4096",
        "--optimizer",
        "adamw-8bit",
        "--no-grad-checkpointing",
        "--attention",
        "eager",
        "--precision",
        "bf16",
        "--json",
    )
    assert res.code == 0, res.err
    inputs = res.json()["inputs"]
    assert inputs["lora_rank"] == 64 and inputs["grad_checkpointing"] is False
    assert inputs["train_modules"] == ["embed", "lm_head"]


def test_estimate_does_not_fit(cli) -> None:  # type: ignore[no-untyped-def]
    res = cli("estimate", "llama3.1:70b", "--gpu", "4090", "--json")
    assert res.code == 0
    assert res.json()["fits"] is False and res.json()["headroom_bytes"] < 0


@pytest.mark.parametrize("lang,needle", [("en", "Memory per GPU"), ("zh", "每张 GPU 的显存构成")])
def test_estimate_table(cli, lang: str, needle: str) -> None:  # type: ignore[no-untyped-def]
    res = cli("estimate", "qwen2.5:7b", "--gpu", "4090", "--lang", lang)
    assert res.code == 0 and needle in res.out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--batch", "0"), "--batch"),
        (("--context", "-5"), "--context"),
        (("--quant", "q9_z"), "--quant"),
        (("--engine", "warp-drive"), "--engine"),
        (("--mode", "qlora", "--quant", "bf16"), "QLoRA"),
        (("--mode", "full", "--quant", "int4-gptq"), "--mode full"),
        (("--strategy", "tp", "--gpus", "3"), "tensor parallel"),
        (("--lora-targets", "q,attention"), "--lora-targets"),
        (("--kv-dtype", "int3"), "--kv-dtype"),
    ],
)
def test_estimate_bad_input(cli, args: tuple[str, ...], needle: str) -> None:  # type: ignore[no-untyped-def]
    res = cli("estimate", "qwen2.5:7b", *args)
    assert res.code == 2, res.out
    assert needle in res.err and len(res.err.strip().splitlines()) == 1


def test_qlora_on_gguf_file(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from tests.catalog.test_local_models import _write_gguf

    path = tmp_path / "m.gguf"
    _write_gguf(path)
    res = cli("estimate", str(path), "--mode", "qlora")
    assert res.code == 2 and "GGUF" in res.err
    res = cli("estimate", str(path), "--json")
    assert res.code == 0, res.err
    assert res.json()["inputs"]["engine"] == "llama.cpp"


def test_fit_lists_gpus(cli) -> None:  # type: ignore[no-untyped-def]
    res = cli("fit", "qwen2.5:72b", "--json")
    assert res.code == 0, res.err
    rows = res.json()["fits"]
    ids = {r["gpu"] for r in rows}
    assert "h200" in ids and "rtx-4060" not in {r["gpu"] for r in rows if r["count"] == 1}
    assert all(r["headroom_bytes"] >= 0 and r["max_context"] > 0 for r in rows)


def test_fit_bad_input(cli) -> None:  # type: ignore[no-untyped-def]
    res = cli("fit", "qwen2.5:7b", "--batch", "0")
    assert res.code == 2 and "--batch" in res.err


def test_ubatch_sets_the_prefill_step(cli) -> None:  # type: ignore[no-untyped-def]
    """`--ubatch` is llama.cpp's -ub: a larger step holds more activations at once and gives
    each MoE expert more tokens per weight tile (estimate.speed.moe_tile_slowdown)."""
    base = ("gpt-oss-20b", "--gpu", "rtx-pro-6000-blackwell", "--engine", "llama.cpp")
    args = (*base, "--prompt-tokens", "2048", "--json")
    default, big = cli("estimate", *args), cli("estimate", *args, "--ubatch", "2048")
    assert default.code == 0 and big.code == 0, (default.err, big.err)
    d, b = default.json(), big.json()
    assert b["memory"]["device_total_bytes"] > d["memory"]["device_total_bytes"]
    assert b["speed"]["prefill_tokens_per_s"] > d["speed"]["prefill_tokens_per_s"]
    bad = cli("estimate", *base, "--ubatch", "0")
    assert bad.code == 2 and "--ubatch" in bad.err and "Traceback" not in bad.err


def test_estimate_execution_flag_speeds_up_a_compiled_run(cli) -> None:  # type: ignore[no-untyped-def]
    base = ("estimate", "llama3.1:8b", "--mode", "lora", "--gpu", "a100-80gb")
    runs = {}
    for mode in ("eager", "compiled"):
        res = cli(*base, "--train-tokens", "1e8", "--execution", mode, "--json")
        assert res.code == 0, res.err
        speed = res.json()["speed"]
        assert speed["factors"]["execution"] == mode
        runs[mode] = speed["train_tokens_per_s"]
    assert runs["compiled"] > 1.1 * runs["eager"]
