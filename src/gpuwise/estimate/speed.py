"""Tokens per second and training time from achievable (not datasheet) rates.

Decode: each step reads the active weights and the KV cache (bytes ÷ achievable bandwidth),
unpacks quantized weights on the vector units (weights × work per weight ÷ FP32 rate) and pays
a fixed cost per layer (kernel launches, synchronisation, sampling); a large batch becomes
compute-bound (2 × active parameters FLOPs per token). Prefill is compute-bound: 2 × active
parameters plus attention FLOPs per token over the tensor rate the engine's kernels use for the
weight format (FP8 for W8A8 FP8, INT8 for llama.cpp's quantized GEMMs, 16-bit for weight-only
formats) times the engine's achieved share, never above the architecture's measured matmul
ceiling. Training takes 6 × parameters FLOPs per token (8 × with activation recomputation; LoRA
skips the weight gradients: 4 ×), over GPUs × dense peak × achievable-matmul share × the
utilisation training reaches, plus the gradient / parameter traffic on the actual link.
Every efficiency is catalog data (data/speed.toml, data/speed_fitted.toml) with its source.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from dataclasses import dataclass, field
from typing import Any

from gpuwise.catalog.schema import Gpu
from gpuwise.errors import UserError
from gpuwise.estimate.resolve import Resolved
from gpuwise.estimate.speed_band import bands_of
from gpuwise.estimate.speed_constants import SpeedConstants
from gpuwise.estimate.speed_decode import DecodeTerms as DecodeTerms
from gpuwise.estimate.speed_decode import _attention_flops_per_token as _attention_flops_per_token
from gpuwise.estimate.speed_decode import _experts_touched as _experts_touched
from gpuwise.estimate.speed_decode import _quantized_weights as _quantized_weights
from gpuwise.estimate.speed_decode import _read_bytes_per_token as _read_bytes_per_token
from gpuwise.estimate.speed_decode import decode_step as decode_step
from gpuwise.estimate.speed_decode import decode_terms as decode_terms
from gpuwise.estimate.speed_decode import step_time as step_time
from gpuwise.estimate.speed_links import collective_bps as collective_bps
from gpuwise.estimate.speed_links import link_bandwidth_bps as link_bandwidth_bps
from gpuwise.estimate.speed_links import pcie_bps as pcie_bps
from gpuwise.estimate.speed_prefill import PrefillParts as PrefillParts
from gpuwise.estimate.speed_prefill import moe_tile_slowdown as moe_tile_slowdown
from gpuwise.estimate.speed_prefill import prefill_parts as prefill_parts
from gpuwise.estimate.speed_prefill import prefill_time as prefill_time
from gpuwise.estimate.speed_prefill import prefill_work_flops as prefill_work_flops
from gpuwise.estimate.speed_prefill import prompt_flops as prompt_flops
from gpuwise.estimate.speed_prefill import routed_flops_per_token as routed_flops_per_token
from gpuwise.estimate.speed_rates import WEIGHT_ONLY_KINDS as WEIGHT_ONLY_KINDS
from gpuwise.estimate.speed_rates import Rates as Rates
from gpuwise.estimate.speed_rates import kernel_kind as kernel_kind
from gpuwise.estimate.speed_rates import peak_half_flops as peak_half_flops
from gpuwise.estimate.speed_rates import prefill_group_rate as prefill_group_rate
from gpuwise.estimate.speed_rates import rates as rates
from gpuwise.estimate.speed_rates import tensor_peak as tensor_peak
from gpuwise.estimate.speed_rates import vector_flops as vector_flops


@dataclass(frozen=True)
class SpeedInputs:
    """What the speed model needs beyond the memory request."""

    gpu: Gpu
    gen_tokens: int = 128
    concurrency: int | None = None
    train_tokens: float | None = None
    epochs: float = 1.0
    cpu_bandwidth_gbps: float | None = None
    offload_fraction: float = 0.0
    max_batch: int | None = None
    backend: str | None = None
    built: dt.date | None = None
    enforce_eager: bool = False
    model_parallel: int = 1
    """Training: GPUs one copy of the weights is split over (tensor × pipeline parallel), so
    data-parallel replicas are gpus ÷ this and each synchronises its share of the gradients."""
    expert_parallel: int = 1
    """Training a MoE: GPUs the experts are spread over; tokens travel to their experts and back
    (all-to-all) in every MoE layer, forward and backward."""
    node_gpus: int | None = None
    """Devices in one machine when the job spans several (a rented node, an owned server)."""
    network_gbps_per_node: float | None = None
    """The scale-out network of one machine (Gb/s), shared by its devices across nodes."""
    moe_expert_loop: bool | None = None
    """Training a MoE: whether the framework runs the routed experts one at a time (None: the
    engine's catalog flag; False for grouped-GEMM frameworks such as Megatron)."""
    grad_accumulation: int = 1
    """Training: micro-steps per optimizer step. A layout that synchronises gradients only at the
    optimizer step (DDP under no_sync, ZeRO-1, Megatron's distributed optimizer) sends them once
    per this many micro-steps (estimate.train_speed.comm_bytes_by_cadence)."""
    execution: str | None = None
    """Training: how the step runs (eager, compiled, fused, framework; None: the engine's
    catalog default), which scales the utilisation by its sourced speed-up over eager."""
    cached_prompt_share: float = 0.0
    """Serving: the share of each prompt found in the engine's prefix cache (vLLM's and
    SGLang's automatic prefix caching reuse a repeated prefix's KV): only the rest is
    prefilled, attending to the cached part. Decode still reads the whole context."""


@dataclass(frozen=True)
class SpeedEstimate:
    """Throughputs in tokens/s, times in seconds (train_time in hours), and what bound each."""

    bound: str
    prefill_tokens_per_s: float | None = None
    decode_tokens_per_s: float | None = None
    time_to_first_token_s: float | None = None
    serving_tokens_per_s: float | None = None
    serving_bound: str | None = None
    single_stream_tokens_per_s: float | None = None
    """Decode of one request alone on the replica: what a request's speed tends to as
    replicas are added, and cannot pass (advise.margin.per_request_ceiling)."""
    train_tokens_per_s: float | None = None
    step_time_s: float | None = None
    train_time_h: float | None = None
    factors: dict[str, Any] = field(default_factory=dict)
    band: dict[str, list[float]] | None = None
    """p10 and p90 of each figure: where 8 in 10 published measurements of such setups fell
    relative to the estimate when their source was left out of the fit (estimate/speed_band.py)."""

    def as_dict(self) -> dict[str, Any]:
        """The `speed` object of `gpuwise estimate --json` (None fields left out)."""
        return {k: v for k, v in self.__dict__.items() if v is not None}

    @property
    def headline_tokens_per_s(self) -> float | None:
        """The figure a plan sizes by: serving throughput, else decode, else training."""
        return self.serving_tokens_per_s or self.decode_tokens_per_s or self.train_tokens_per_s

    @property
    def pessimistic_tokens_per_s(self) -> float | None:
        """The low (p10) end of the headline figure's band, for deadlines and targets: 9 in 10
        held-out measurements of such setups reached at least this. The figure itself when the
        catalog has no band for it."""
        for name in ("serving_tokens_per_s", "decode_tokens_per_s", "train_tokens_per_s"):
            value = getattr(self, name)
            if value:
                return self.band[name][0] if self.band and name in self.band else value
        return None


def scheduled(r: Resolved, sc: SpeedConstants, gpu: Gpu) -> Resolved:
    """The request with the prefill step the engine's scheduler uses on this card (vLLM: 8192
    tokens on cards of 70 GiB or more that are not A100s, else 2048), unless the user set one."""
    sched = sc.scheduler(r.engine.id, gpu)
    if r.req.ubatch or sched is None or not sched.max_batched_tokens:
        return r
    engine = r.engine.model_copy(update={"prefill_chunk_tokens": sched.max_batched_tokens})
    return dataclasses.replace(r, engine=engine)


def inference_speed(r: Resolved, sc: SpeedConstants, s: SpeedInputs) -> SpeedEstimate:
    """Prefill, decode, time to first token and (with concurrency) serving throughput.

    The first token is sampled from the logits of the prompt's last position, which the prefill
    pass computes: time to first token is the prefill's time (no decode step is needed for it).
    """
    r = scheduled(r, sc, s.gpu)
    rt = rates(r, sc, s.gpu, s.backend, s.built, s.enforce_eager)
    prompt = r.prompt_tokens if r.req.prompt_tokens else max(1, r.context - s.gen_tokens)
    cpu_bps = (s.cpu_bandwidth_gbps or sc.host.cpu_memory_bandwidth_gbps) * 1e9
    # a replica over several machines all-reduces inside each machine; what crosses between
    # them is added by estimate.speed_scaleout (node_gpus set), not paid here as a network TP
    peers = min(r.req.gpus, s.node_gpus) if s.node_gpus else r.req.gpus
    link_s = sc.link(s.gpu, peers).allreduce_latency_us * 1e-6
    link_bps = collective_bps(s.gpu, sc, peers)
    ctx = prompt + s.gen_tokens / 2
    step, bound = decode_step(r, rt, r.req.batch, ctx, s.offload_fraction, cpu_bps, link_s)
    alone, _ = decode_step(r, rt, 1, ctx, s.offload_fraction, cpu_bps, link_s)
    fresh, cached = fresh_prompt(prompt, s.cached_prompt_share)
    pre, _ = prefill_time(r, rt, fresh, 1, link_bps, cached)
    out = SpeedEstimate(
        bound=bound,
        prefill_tokens_per_s=fresh / pre,
        decode_tokens_per_s=r.req.batch / step,
        single_stream_tokens_per_s=1.0 / alone,
        time_to_first_token_s=pre,
        factors=rt.factors,
    )
    if s.concurrency:
        out = _serving(r, rt, s, prompt, out, cpu_bps, (link_s, link_bps))
    kinds = ("decode", "prefill", "serving")
    return dataclasses.replace(out, band=bands_of(out, sc, kinds, r.engine.id, s.gpu))


def fresh_prompt(prompt: int, cached_share: float) -> tuple[int, int]:
    """(tokens to prefill, tokens found in the prefix cache) of a prompt."""
    fresh = max(1, round(prompt * (1.0 - cached_share)))
    return fresh, prompt - fresh


def batch_prefill_s(r: Resolved, sc: SpeedConstants, s: SpeedInputs, batch: int) -> float:
    """Seconds to prefill `batch` prompts that arrive together (a static batch, or the first
    wave of an in-flight batching engine such as TensorRT-LLM or vLLM): the engine runs them as
    one stream of prompt chunks of its step budget, so the weights are read once a chunk, not
    once a prompt, and short prompts stop being bound by weight reads and launches."""
    r = scheduled(r, sc, s.gpu)
    rt = rates(r, sc, s.gpu, s.backend, s.built, s.enforce_eager)
    prompt = r.prompt_tokens if r.req.prompt_tokens else max(1, r.context - s.gen_tokens)
    pre, _ = prefill_time(r, rt, prompt, max(1, batch), collective_bps(s.gpu, sc, r.req.gpus))
    return pre


def _serving(
    r: Resolved,
    rt: Rates,
    s: SpeedInputs,
    prompt: int,
    base: SpeedEstimate,
    cpu_bps: float,
    link: tuple[float, float],
) -> SpeedEstimate:
    """Output tokens/s with `concurrency` requests in flight (prefill interleaved with decode).

    A request's cycle is its prefill (which yields the first token) and gen − 1 decode steps;
    `link` is the all-reduce latency (s) and bandwidth (B/s) between tensor-parallel GPUs, paid
    by the prompts' activations as by one prompt's (it was left out of the batch's prefill).
    An engine that mixes prompt chunks into decode steps (vLLM V1) advances every running
    request by one token in each chunk's step, so a cycle saves one decode step per chunk of
    the step budget (never more than the prefill took): a compute-bound chunk hides the
    memory-bound decode tokens riding with it, not the other way round.
    """
    link_s, link_bps = link
    c = s.concurrency or 1
    if s.max_batch is not None and c > s.max_batch:
        raise UserError("speed.concurrency_too_high", concurrency=c, max=s.max_batch)
    step, bound = decode_step(
        r, rt, c, prompt + s.gen_tokens / 2, s.offload_fraction, cpu_bps, link_s
    )
    fresh, cached = fresh_prompt(prompt, s.cached_prompt_share)
    pre, _ = prefill_time(r, rt, fresh, c, link_bps, cached)
    steps = max(s.gen_tokens - 1, 0)
    cycle = steps * step + pre
    if rt.mixed_steps and steps:  # each prompt chunk's step also carries the decode tokens
        chunks = math.ceil(fresh * c / (r.engine.prefill_chunk_tokens or fresh * c))
        cycle -= min(min(chunks, steps) * step, pre)
    return SpeedEstimate(
        **{
            **base.__dict__,
            "serving_tokens_per_s": c * s.gen_tokens / cycle,
            "serving_bound": bound,
        }
    )
