"""A long-context service tries the engine's FP8 KV cache where the 16-bit one misses the
memory or the speed (advise/sizing._formats; blind w22-02: 40k-token prompts sized six H100s
at bf16 KV, every rental over an $8k budget)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from gpuwise.advise.plan import make_plan
from gpuwise.advise.report import sized_config
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.memory import estimate_memory
from gpuwise.estimate.request import MemoryRequest

AGENT: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "qwen3-coder-30b-a3b", "engine": "vllm",
                 "concurrency": 32, "prompt_tokens": 40000, "cached_prompt_share": 0.85,
                 "gen_tokens": 800, "target_tokens_per_s_per_request": 40},
    "months": 12, "hours_per_day": 24, "region": "us", "public_api": True,
    "entity": "company", "currency": "USD",
}  # fmt: skip


@pytest.fixture(scope="module")
def plan() -> Any:
    return make_plan(load_catalog(), parse_scenario(AGENT, "t"), dt.date(2026, 12, 6))


def _every(plan: Any) -> list[Any]:
    return [*plan.options, *plan.infeasible, *plan.unchecked]


def _fp8_kv(o: Any) -> bool:
    return o.sized.memory.inputs.get("kv_dtype") == "fp8"


def test_long_prompts_take_the_fp8_cache_and_say_so(plan: Any) -> None:
    lighter = [o for o in _every(plan) if _fp8_kv(o)]
    assert lighter, "40k-token prompts on vLLM try the FP8 KV cache"
    for o in lighter:
        assert o.candidate.gpu.tflops.fp8, "only cards with FP8 units"
        assert any(k == "risk.kv_cache_fp8" for k, _ in o.risks)
        assert sized_config(o.sized).kv_cache_dtype == "fp8"  # and --json says it
    for o in _every(plan):
        if not _fp8_kv(o):
            assert sized_config(o.sized).kv_cache_dtype is None


def test_the_fp8_cache_holds_half_the_bytes_of_the_16_bit_one(plan: Any) -> None:
    o = next(o for o in _every(plan) if _fp8_kv(o))
    cat = load_catalog()
    model = cat.model("qwen3-coder-30b-a3b")
    common = {"model": model, "quant": o.sized.quant, "batch": 4, "context": 41000,
              "prompt_tokens": 40000, "gpus": 1, "engine": "vllm"}  # fmt: skip
    mc = MemoryConstants.from_catalog(cat)
    half = estimate_memory(MemoryRequest(**common, kv_dtype="fp8"), mc)
    full = estimate_memory(MemoryRequest(**common), mc)
    assert half.breakdown["kv_cache"] == pytest.approx(full.breakdown["kv_cache"] / 2, rel=0.02)


def test_a_short_chat_keeps_the_16_bit_cache() -> None:
    chat = {**AGENT, "workload": {"kind": "serve", "model": "qwen3-coder-30b-a3b",
                                  "engine": "vllm", "concurrency": 4, "prompt_tokens": 500,
                                  "gen_tokens": 200}}  # fmt: skip
    plan = make_plan(load_catalog(), parse_scenario(chat, "t"), dt.date(2026, 12, 6))
    assert plan.options and not any(_fp8_kv(o) for o in plan.options[:10])
