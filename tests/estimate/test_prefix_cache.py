"""A prompt whose prefix the engine has cached (vLLM/SGLang automatic prefix caching) is
prefilled only for its new tokens, which still attend to the cached ones; decode reads the
whole context (estimate.speed.fresh_prompt, SpeedInputs.cached_prompt_share)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.request import MemoryRequest
from gpuwise.estimate.resolve import resolve
from gpuwise.estimate.speed import SpeedInputs, fresh_prompt, inference_speed, prompt_flops
from gpuwise.estimate.speed_constants import SpeedConstants

CAT = load_catalog()
MC = MemoryConstants.from_catalog(CAT)
SC = SpeedConstants.from_catalog(CAT)


def _speed(share: float, concurrency: int | None = 8) -> Any:
    req = MemoryRequest(
        model=CAT.model("qwen2.5-14b"), quant="bf16", engine="vllm", batch=8,
        context=24000, prompt_tokens=20000,
    )  # fmt: skip
    inputs = SpeedInputs(
        gpu=CAT.gpu("h100-sxm"), gen_tokens=400, concurrency=concurrency,
        cached_prompt_share=share,
    )  # fmt: skip
    return inference_speed(resolve(req, MC), SC, inputs)


def test_fresh_tokens_are_the_uncached_rest() -> None:
    assert fresh_prompt(20000, 0.0) == (20000, 0)
    assert fresh_prompt(20000, 0.9) == (2000, 18000)
    assert fresh_prompt(10, 0.99) == (1, 9)  # at least one token is always computed


def test_new_tokens_attend_to_the_cached_prefix() -> None:
    """2,000 new tokens after 18,000 cached cost more attention than 2,000 alone, and less
    than the whole 20,000-token prompt."""
    r = resolve(MemoryRequest(model=CAT.model("qwen2.5-14b"), quant="bf16", engine="vllm"), MC)
    alone, after, whole = (
        prompt_flops(r, 2000),
        prompt_flops(r, 2000, 18000),
        prompt_flops(r, 20000),
    )
    assert alone < after < whole


def test_cached_prefixes_cut_the_first_token_and_raise_throughput() -> None:
    cold, warm = _speed(0.0), _speed(0.9)
    assert warm.time_to_first_token_s < cold.time_to_first_token_s / 3
    assert warm.serving_tokens_per_s > cold.serving_tokens_per_s
    assert warm.decode_tokens_per_s == pytest.approx(cold.decode_tokens_per_s)


def test_an_agent_with_cached_context_needs_no_more_hardware() -> None:
    data: dict[str, Any] = {
        "workload": {"kind": "serve", "model": "qwen2.5-14b", "concurrency": 16,
                     "prompt_tokens": 20000, "gen_tokens": 400, "context": 32768,
                     "target_tokens_per_s_per_request": 30},
        "months": 12, "hours_per_day": 10, "region": "us", "entity": "company",
        "currency": "USD",
    }  # fmt: skip
    today = dt.date(2026, 12, 6)
    cold = make_plan(CAT, parse_scenario(data, "t"), today)
    warm_data = {**data, "workload": {**data["workload"], "cached_prompt_share": 0.85}}
    warm = make_plan(CAT, parse_scenario(warm_data, "t"), today)
    assert warm.options[0].cost.total <= cold.options[0].cost.total
