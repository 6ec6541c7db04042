"""The running batch of a continuous-batching engine (estimate/scheduler.py)."""

from __future__ import annotations

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.request import MemoryRequest
from gpuwise.estimate.scheduler import BLOCK_TOKENS, running_batch, tokens_held
from gpuwise.estimate.speed_constants import SpeedConstants


@pytest.fixture(scope="module")
def env():  # type: ignore[no-untyped-def]
    cat = load_catalog(use_cache=False)
    return cat, MemoryConstants.from_catalog(cat), SpeedConstants.from_catalog(cat)


def _req(cat, prompt: int, gen: int, kv: str | None = None) -> MemoryRequest:  # type: ignore[no-untyped-def]
    return MemoryRequest(
        model=cat.model("llama-3.1-8b"),
        quant="bf16",
        context=prompt + gen,
        prompt_tokens=prompt,
        kv_dtype=kv,
        engine="vllm",
    )


def test_tokens_held_are_prompt_plus_half_the_output_in_whole_blocks() -> None:
    assert tokens_held(100, 100) == 160
    assert tokens_held(1000, 0) % BLOCK_TOKENS == 0 and tokens_held(1000, 0) >= 1000


def test_few_requests_all_run(env) -> None:  # type: ignore[no-untyped-def]
    cat, mc, sc = env
    rb = running_batch(_req(cat, 512, 256), mc, sc, cat.gpu("H100 80GB"), 8, 256)
    assert (rb.running, rb.queued, rb.limit) == (8, 0, "concurrency")


def test_short_requests_queue_behind_max_num_seqs(env) -> None:  # type: ignore[no-untyped-def]
    """vLLM admits at most max-num-seqs (256 on an A100): the other 744 of 1000 queue."""
    cat, mc, sc = env
    rb = running_batch(_req(cat, 128, 128), mc, sc, cat.gpu("A100 80GB"), 1000, 128)
    assert (rb.running, rb.queued, rb.limit) == (256, 744, "max_num_seqs")


def test_long_requests_are_limited_by_the_kv_pool_and_fp8_doubles_it(env) -> None:  # type: ignore[no-untyped-def]
    cat, mc, sc = env
    gpu = cat.gpu("H100 80GB")
    f16 = running_batch(_req(cat, 32000, 100), mc, sc, gpu, 200, 100)
    fp8 = running_batch(_req(cat, 32000, 100, "fp8"), mc, sc, gpu, 200, 100)
    assert f16.limit == "kv_pool" and 0 < f16.running < 200
    assert fp8.running == pytest.approx(2 * f16.running, abs=1)


def test_speed_cases_load_their_kv_dtype(env) -> None:  # type: ignore[no-untyped-def]
    """A measurement row run with an FP8 KV cache is estimated with one (the loader used to
    drop the field, so every row ran with the engine's 16-bit default)."""
    from pathlib import Path

    import tomllib

    from gpuwise.estimate.speed_cases import prepare_case

    cat, mc, sc = env
    path = Path(__file__).parent.parent / "data" / "speed_cases.toml"
    cases = tomllib.loads(path.read_text(encoding="utf-8"))["case"]
    fp8 = [c for c in cases if c.get("kv_dtype") == "fp8"]
    assert fp8
    for case in fp8[:3]:
        assert prepare_case(cat, mc, case, sc).r.kv.id == "fp8", case["id"]
    plain = next(c for c in cases if c["kind"] == "serving" and not c.get("kv_dtype"))
    assert prepare_case(cat, mc, plain, sc).r.kv.id != "fp8"


def test_old_rocm_vllm_reads_an_fp8_cache_no_faster_than_a_16_bit_one(env) -> None:  # type: ignore[no-untyped-def]
    """ROCm vLLM builds before the faster FP8 paged-attention kernels dequantized the cache
    element by element: the KV read of a decode step costs as much as the 16-bit cache's;
    current builds and CUDA read the FP8 bytes at their size."""
    import datetime as dt

    from gpuwise.estimate.resolve import resolve
    from gpuwise.estimate.speed import decode_step, rates

    cat, mc, sc = env
    gpu = cat.gpu("MI300X")
    old = dt.date(2024, 11, 21)
    assert sc.kv_read_factor("vllm", "rocm", "fp8", old)[0] == 2.0
    assert sc.kv_read_factor("vllm", "rocm", "fp8", None)[0] == 1.0
    assert sc.kv_read_factor("vllm", "cuda", "fp8", old)[0] == 1.0
    f16 = resolve(_req(cat, 2048, 2048), mc)
    fp8 = resolve(_req(cat, 2048, 2048, "fp8"), mc)
    step_f16, _ = decode_step(f16, rates(f16, sc, gpu, built=old), 256, 3072)
    step_old, _ = decode_step(fp8, rates(fp8, sc, gpu, built=old), 256, 3072)
    step_new, _ = decode_step(fp8, rates(fp8, sc, gpu), 256, 3072)
    assert step_old == pytest.approx(step_f16, rel=1e-9)
    assert step_new < step_old
