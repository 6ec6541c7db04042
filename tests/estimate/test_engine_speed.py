"""Engines are not one engine (issue 28): how each launches a step, schedules a server, and runs
quantized GEMMs; and a saturated server runs only as many requests as it can hold."""

from __future__ import annotations

import dataclasses

from gpuwise.catalog import load_catalog
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.request import MemoryRequest
from gpuwise.estimate.resolve import Resolved, resolve
from gpuwise.estimate.serving import running_requests
from gpuwise.estimate.speed import (
    SpeedInputs,
    collective_bps,
    decode_step,
    inference_speed,
    prefill_group_rate,
    prefill_time,
    rates,
    scheduled,
)
from gpuwise.estimate.speed_constants import SpeedConstants

CAT = load_catalog()
MC = MemoryConstants.from_catalog(CAT)
SC = SpeedConstants.from_catalog(CAT)


def _r(model: str, engine: str, quant: str = "bf16", gpus: int = 1, **kw: object) -> Resolved:
    req = MemoryRequest(model=CAT.model(model), quant=quant, engine=engine, gpus=gpus, **kw)  # type: ignore[arg-type]
    return resolve(req, MC)


def test_graph_engines_without_decode_data_take_the_graph_class_overhead() -> None:
    """TensorRT-LLM has no batch-1 decode case: its per-layer cost comes from the engines that
    also capture CUDA graphs, not from every engine (eager transformers among them)."""
    trt = SC.overhead("tensorrt-llm", "cuda")
    assert trt.engine in ("tensorrt-llm", "graphs")
    assert trt.ms_per_layer < SC.overhead("transformers", "cuda").ms_per_layer


def test_enforce_eager_pays_the_eager_launch_cost() -> None:
    gpu = CAT.gpu_by_id("h100-sxm")
    r = _r("llama-3.1-8b", "vllm")
    graphs = rates(r, SC, gpu)
    eager = rates(r, SC, gpu, eager=True)
    assert eager.overhead_s_per_layer > graphs.overhead_s_per_layer
    fast = inference_speed(r, SC, SpeedInputs(gpu=gpu))
    slow = inference_speed(r, SC, SpeedInputs(gpu=gpu, enforce_eager=True))
    assert (slow.decode_tokens_per_s or 0) < (fast.decode_tokens_per_s or 0)


def test_vllm_v0_builds_are_their_own_era() -> None:
    import datetime as dt

    assert SC.engine_key("vllm", dt.date(2024, 11, 6), "cuda") == "vllm-v0"
    assert SC.engine_key("vllm", dt.date(2025, 10, 1), "cuda") == "vllm"
    assert SC.engine_key("vllm", dt.date(2023, 10, 6), "cuda") == "vllm-eager"


def test_vllm_scheduler_defaults_follow_the_card() -> None:
    """vLLM batches 8192 tokens and runs 1024 requests on cards of 70 GiB or more that are not
    A100s, 2048 and 256 elsewhere."""
    h100, a100 = CAT.gpu_by_id("h100-sxm"), CAT.gpu_by_id("a100-80gb")
    big, small = SC.scheduler("vllm", h100), SC.scheduler("vllm", a100)
    assert big and big.max_running_requests == 1024 and big.max_batched_tokens == 8192
    assert small and small.max_running_requests == 256 and small.max_batched_tokens == 2048
    assert SC.scheduler("sglang", h100) is None
    r = _r("qwen3-14b", "vllm")
    assert scheduled(r, SC, a100).engine.prefill_chunk_tokens == 2048
    user = dataclasses.replace(r, req=r.req.with_(ubatch=4096))
    assert scheduled(user, SC, a100) is user  # the user's step wins


def test_a_saturated_server_runs_what_its_scheduler_and_kv_cache_hold() -> None:
    a100 = CAT.gpu_by_id("a100-80gb")
    short = MemoryRequest(model=CAT.model("qwen3-8b"), engine="vllm", context=300)
    long = short.with_(context=32_000)
    assert running_requests(short, MC, SC, a100, 1000) == 256  # the scheduler's cap
    held = running_requests(long, MC, SC, a100, 1000)
    assert 1 <= held < 256  # the KV cache's
    assert running_requests(short, MC, SC, a100, 8) == 8


def test_serving_prefill_pays_the_tensor_parallel_all_reduce_regression() -> None:
    """The serving cycle's prefill of c prompts was priced without the all-reduce of their
    activations between tensor-parallel GPUs (one prompt's prefill paid it): the cycle is now
    gen − 1 decode steps plus the prefill with the link."""
    gpu = CAT.gpu_by_id("a100-80gb")
    r = scheduled(_r("qwen3-32b", "vllm", gpus=4, strategy="tp"), SC, gpu)
    rt = rates(r, SC, gpu)
    c, prompt, gen = 64, 2000, 100
    with_link, _ = prefill_time(r, rt, prompt, c, collective_bps(gpu, SC, 4))
    without, _ = prefill_time(r, rt, prompt, c)
    assert with_link > without
    link_s = SC.link(gpu, 4).allreduce_latency_us * 1e-6
    step, _ = decode_step(r, rt, c, prompt + gen / 2, 0.0, 0.0, link_s)
    r_in = _r(
        "qwen3-32b", "vllm", gpus=4, strategy="tp", prompt_tokens=prompt, context=prompt + gen
    )
    est = inference_speed(r_in, SC, SpeedInputs(gpu=gpu, gen_tokens=gen, concurrency=c))
    cycle = c * gen / (est.serving_tokens_per_s or 1)
    serial = (gen - 1) * step + with_link
    # vLLM V1 mixes prompt chunks into decode steps: never more than the sum of the two, never
    # less than either (the prefill, all-reduce included, is a floor of the cycle)
    assert max((gen - 1) * step, with_link) * (1 - 1e-9) <= cycle <= serial * (1 + 1e-9)
    assert cycle < serial  # this cycle has both parts substantial: they overlap


def test_engines_that_do_not_mix_prompts_into_decode_steps_pay_the_sum() -> None:
    """SGLang runs a prompt batch and a decode batch as separate steps by default: its serving
    cycle is gen − 1 decode steps plus the prefill, as vLLM V0's was."""
    gpu = CAT.gpu_by_id("a100-80gb")
    c, prompt, gen = 64, 2000, 100
    r = scheduled(_r("qwen3-32b", "sglang", gpus=4, strategy="tp"), SC, gpu)
    rt = rates(r, SC, gpu)
    assert not rt.mixed_steps and rates(_r("qwen3-32b", "vllm"), SC, gpu).mixed_steps
    link_s = SC.link(gpu, 4).allreduce_latency_us * 1e-6
    step, _ = decode_step(r, rt, c, prompt + gen / 2, 0.0, 0.0, link_s)
    pre, _ = prefill_time(r, rt, prompt, c, collective_bps(gpu, SC, 4))
    r_in = _r(
        "qwen3-32b", "sglang", gpus=4, strategy="tp", prompt_tokens=prompt, context=prompt + gen
    )
    est = inference_speed(r_in, SC, SpeedInputs(gpu=gpu, gen_tokens=gen, concurrency=c))
    cycle = c * gen / (est.serving_tokens_per_s or 1)
    assert abs(cycle - ((gen - 1) * step + pre)) < 1e-6 * cycle


def test_vllm_awq_and_gptq_prefill_like_16_bit_gemms() -> None:
    """Marlin dequantizes in registers at the tensor rate: vLLM's AWQ and GPTQ prefill is in
    the float group; transformers' AutoAWQ GEMMs stay weight-only; builds before Marlin too."""
    import datetime as dt

    path = SC.kernel_rate("vllm", "awq")
    assert prefill_group_rate("bf16", "awq", path.weight_only_gemm) == "bf16"
    old = SC.kernel_rate("vllm", "awq", dt.date(2023, 11, 1))
    assert prefill_group_rate("bf16", "awq", old.weight_only_gemm) == "bf16+wq"
    hf = SC.kernel_rate("transformers", "awq")
    assert prefill_group_rate("bf16", "awq", hf.weight_only_gemm) == "bf16+wq"


def test_a_moe_step_reads_more_experts_as_concurrency_grows() -> None:
    """At batch B each layer touches 1 − (1 − k/E)^B of its experts, so the weight traffic of a
    serving step grows with concurrency (gpt-oss-120b: 4 of 128)."""
    from gpuwise.estimate.speed import decode_terms

    r = _r("gpt-oss-120b", "vllm", quant="mxfp4")
    one, many = decode_terms(r, 1, 1000), decode_terms(r, 64, 1000)
    assert many.weight_bytes > 3 * one.weight_bytes
    assert (
        decode_terms(r, 1024, 1000).weight_bytes <= 1.001 * decode_terms(r, 4096, 1000).weight_bytes
    )


def test_fp8_prompt_attention_runs_at_the_16_bit_rate_regression() -> None:
    """A W8A8 FP8 model's GEMMs run at the FP8 rate but its attention multiplies 16-bit queries
    and keys: a 32k-token prompt, whose attention is a third of its FLOPs, was priced as if all
    of it ran at the FP8 rate (GPUStack's FP8 32k-prompt runs on H100 +66 to +122%)."""
    gpu = CAT.gpu_by_id("h100-sxm")
    r = _r("qwen3-14b", "vllm", quant="fp8", context=32_768, prompt_tokens=32_000)
    shipped = rates(r, SC, gpu)
    assert shipped.attention_flops is not None and shipped.attention_flops <= shipped.flops
    rt = dataclasses.replace(shipped, flops=2 * shipped.attention_flops)  # GEMMs at FP8 speed
    long_s, _ = prefill_time(r, rt, 32_000)
    all_fp8_s, _ = prefill_time(r, dataclasses.replace(rt, attention_flops=None), 32_000)
    assert long_s > all_fp8_s * 1.1
    bf16 = rates(_r("qwen3-14b", "vllm"), SC, gpu)
    assert bf16.attention_flops is None  # 16-bit GEMMs: attention at the same rate
