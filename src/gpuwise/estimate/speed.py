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
from gpuwise.catalog.schema_memory import WeightFormat
from gpuwise.errors import UserError
from gpuwise.estimate.kv import kv_cache_bytes
from gpuwise.estimate.resolve import Resolved
from gpuwise.estimate.speed_band import bands_of
from gpuwise.estimate.speed_constants import (
    SpeedConstants,
    backend_of,
    decode_memory_key,
    engine_family,
    kernel_arch,
)
from gpuwise.estimate.weights import expert_params, param_split, weight_bytes


@dataclass(frozen=True)
class Rates:
    """Achievable rates of one GPU for one engine and weight format."""

    bandwidth_bps: float
    flops: float
    overhead_s_per_layer: float
    dequant_s_per_weight: float
    prefill_overhead_s_per_layer: float = 0.0
    """Launch cost per layer of a prefill step: engines capture CUDA graphs for decode batches
    only (llama.cpp for one-token steps, vLLM and SGLang for decode batch sizes), so a prompt's
    forward pass pays the eager launch cost of the engine's era without graphs."""
    staging_bytes_per_weight: float = 0.0
    attention_flops: float | None = None
    """The rate of a prompt's attention (QKᵀ and attention×V) when it is not the GEMMs' rate:
    FlashAttention and the engines' own attention kernels multiply 16-bit queries and keys
    whatever the weights' format, so a W8A8 FP8 model's attention runs at the 16-bit tensor
    rate, half its GEMMs' peak. None: the same rate as the GEMMs."""
    factors: dict[str, Any] = field(default_factory=dict)


def peak_half_flops(gpu: Gpu) -> float:
    """Dense 16-bit tensor FLOPS (FP32 rate where the device has no faster 16-bit unit)."""
    tf = gpu.tflops
    value = tf.bf16 or tf.fp16 or tf.fp32
    if not value:
        raise UserError("speed.no_flops", gpu=gpu.id)
    return value * 1e12


def kernel_kind(fmt: WeightFormat) -> str:
    """The kernel family of a weight format (16-bit GGUF runs the float kernels)."""
    if fmt.kind == "gguf" and fmt.bits_per_weight >= 16:
        return "float"
    return fmt.kind


WEIGHT_ONLY_KINDS = frozenset({"awq", "gptq", "bnb"})
"""Weight formats whose GEMMs dequantize inside the kernel and multiply in 16 bits."""


def prefill_group_rate(rate: str, kind: str, weight_only: bool | None = None) -> str:
    """The rate a prefill efficiency is looked up (and fitted) by: weight-only quantized GEMMs
    are their own group beside the float GEMMs at the same tensor rate, unless the engine's
    kernel path says its GEMMs run like 16-bit ones (`weight_only` False: Marlin)."""
    wq = kind in WEIGHT_ONLY_KINDS if weight_only is None else weight_only
    return f"{rate}+wq" if wq and rate in ("bf16", "fp16") else rate


def tensor_peak(gpu: Gpu, rate: str, sc: SpeedConstants) -> tuple[float, str]:
    """The dense peak of the tensor rate a kernel uses, and the rate actually available.

    The peak is what the card sustains through long GEMMs: a power-limited card's datasheet
    peak × its power derate (estimate/power.py). A card without an FP8 (or INT8) unit runs those
    formats at its 16-bit rate, as the engines' fallback kernels (FP8-Marlin, dp4a/16-bit
    dequantization) do.
    """
    derate = sc.power_derate(gpu)
    tf = gpu.tflops
    if rate == "fp8" and tf.fp8:
        return tf.fp8 * 1e12 * derate, "fp8"
    if rate == "int8" and tf.int8:
        return tf.int8 * 1e12 * derate, "int8"
    if rate == "fp16_acc16":
        factor, _ = sc.half_accumulate_factor(gpu)
        return peak_half_flops(gpu) * factor * derate, "fp16_acc16"
    return peak_half_flops(gpu) * derate, "fp16" if rate in ("fp16", "int8") else "bf16"


def vector_flops(gpu: Gpu) -> float | None:
    """FP32 vector (non-tensor) FLOPS, where dequantization runs (None when not in the catalog)."""
    return gpu.tflops.fp32 * 1e12 if gpu.tflops.fp32 else None


def rates(
    r: Resolved,
    sc: SpeedConstants,
    gpu: Gpu,
    backend: str | None = None,
    built: dt.date | None = None,
    eager: bool = False,
) -> Rates:
    """Datasheet peaks × the engine's achievable fractions on this kind of card.

    `built` is the engine build's date when estimating a measurement made with an old build
    (its kernels may take another tensor path); None means current builds. `eager`: the user
    turned the engine's CUDA graphs off (vLLM's `--enforce-eager`), so each decode step pays
    the launch cost of eager engines (speed.toml `[[step_launch]]`).
    """
    if not gpu.memory_bandwidth_gbps:
        raise UserError("speed.no_bandwidth", gpu=gpu.id)
    engine = engine_family(r.engine.id)
    backend = backend or backend_of(gpu)
    era = sc.engine_key(engine, built, backend)
    kind = kernel_kind(r.fmt)
    dec = sc.decode_on(gpu, engine, sc.decode_fraction(era, decode_memory_key(gpu, backend)))
    over = sc.overhead(sc.eager_key(engine) if eager else era, backend)
    eager_prefill = sc.launch_class(era) == "graphs" and not sc.prefill_graphs(era)
    over_prefill = sc.overhead(sc.eager_key(engine), backend) if eager_prefill else over
    path = sc.kernel_rate(engine, kind, built, backend)
    peak, rate = tensor_peak(gpu, path.rate, sc)
    group = prefill_group_rate(rate, kind, path.weight_only_gemm)
    pre = sc.prefill_fraction(engine, backend, kernel_arch(gpu), group)
    ceiling = sc.matmul_fraction(gpu)
    fraction = min(pre.fraction, ceiling)
    flops = peak * fraction
    attention: float | None = None
    if kind == "fp8" and rate == "fp8":  # W8A8 never runs below the engine's 16-bit GEMMs
        half_peak, half = tensor_peak(gpu, "bf16", sc)
        half_pre = sc.prefill_fraction(engine, backend, kernel_arch(gpu), half)
        attention = half_peak * min(half_pre.fraction, ceiling)
        flops = max(flops, attention)
    deq = sc.dequant_cost(era, kind, r.fmt.id) if kind != "float" else None
    vector = vector_flops(gpu)
    per_weight = deq.flops_per_weight / vector if deq and vector else 0.0
    used = [dec, over, path, pre] + ([deq] if deq else [])
    return Rates(
        bandwidth_bps=gpu.memory_bandwidth_gbps * 1e9 * dec.bandwidth_fraction,
        flops=flops,
        overhead_s_per_layer=over.ms_per_layer / 1000,
        prefill_overhead_s_per_layer=over_prefill.ms_per_layer / 1000,
        dequant_s_per_weight=per_weight,
        staging_bytes_per_weight=path.staging_bytes_per_weight,
        attention_flops=attention,
        factors={
            "bandwidth_fraction": round(dec.bandwidth_fraction, 3),
            "overhead_ms_per_layer": round(over.ms_per_layer, 4),
            "prefill_rate": rate,
            "flops_fraction": round(fraction, 3),
            "matmul_ceiling": round(ceiling, 3),
            "power_derate": round(sc.power_derate(gpu), 3),
            "sources": sorted(
                {s for u in used for s in u.source_ids()} | set(sc.power_source_ids(gpu))
            ),
        },
    )


def _read_bytes_per_token(r: Resolved, batch: int) -> float:
    """Weight bytes one decode step reads on one GPU (MoE: the experts the batch touches)."""
    m = r.req.model
    wb = weight_bytes(m, r.fmt, r.engine.embeddings_on_cpu)
    total = wb.total
    embedding, _, linear, counts = param_split(m)
    bits = 16.0 if r.fmt.quantizes != "all" else r.fmt.bits_per_weight
    if wb.embedding_on_gpu and not m.tied_embeddings:
        total -= embedding * bits / 8  # the input embedding is a lookup of one row
    if m.moe and counts.ffn_experts:
        scale = linear / max(1, counts.total - counts.embedding - counts.lm_head)
        expert_bytes = counts.ffn_experts * scale * r.fmt.bits_per_weight / 8
        total -= expert_bytes * (1 - _experts_touched(r, batch))
    return total / r.tp


def _experts_touched(r: Resolved, batch: int) -> float:
    """The share of experts a batch routes to: 1 − (1 − k/E)^batch (1 for a dense model)."""
    moe = r.req.model.moe
    if not moe or not moe.experts:
        return 1.0
    return 1 - (1 - moe.active_experts / moe.experts) ** batch


def _quantized_weights(r: Resolved, batch: int, weight_bytes_read: float) -> float:
    """Quantized weights one decode step unpacks on one GPU: the touched experts where only
    the experts are quantized (MXFP4), else every weight read."""
    if kernel_kind(r.fmt) == "float":
        return 0.0
    if r.fmt.quantizes == "experts":
        return expert_params(r.req.model) * _experts_touched(r, batch) / r.tp
    return weight_bytes_read * 8 / r.fmt.bits_per_weight


def _attention_flops_per_token(r: Resolved, context: float) -> float:
    """QKᵀ and attention×V: 2 × 2 × keys seen × heads × head_dim, summed over the layers that
    hold a KV cache (a hybrid's Mamba layers attend to nothing), where a sliding-window layer
    sees at most its window of keys (gpt-oss, Gemma 2/3), the same split as kv.kv_cache_bytes."""
    m = r.req.model
    window = m.window_layers
    window_keys = min(float(m.sliding_window or context), context)
    keys = (m.kv_layers - window) * context + window * window_keys
    return 4.0 * keys * m.heads * m.head_dim


@dataclass(frozen=True)
class DecodeTerms:
    """What one decode step moves and computes on one GPU, before any efficiency is applied."""

    weight_bytes: float
    kv_bytes: float
    offload: float
    flops: float
    quantized_weights: float
    layers: int
    link_s: float


def decode_terms(
    r: Resolved, batch: int, context: float, offload: float = 0.0, link_latency_s: float = 0.0
) -> DecodeTerms:
    """The bytes, FLOPs and quantized weights of one step of `batch` sequences at `context`."""
    m = r.req.model
    weights = _read_bytes_per_token(r, batch)
    kv = kv_cache_bytes(
        m, max(1, int(context)), batch, r.kv.bytes_per_element, r.engine.kv_latent_for_mla, r.tp
    )
    flops = batch * (2 * m.active_params_b * 1e9 + _attention_flops_per_token(r, context)) / r.tp
    quantized = _quantized_weights(r, batch, weights) * (1 - offload)
    link = 2 * m.layers * link_latency_s if r.tp > 1 else 0.0
    return DecodeTerms(weights, kv, offload, flops, quantized, m.layers, link)


def step_time(t: DecodeTerms, rt: Rates, cpu_bps: float = 0.0) -> tuple[float, str]:
    """Seconds of one decode step at the given rates, and the bound hit."""
    memory = (t.weight_bytes * (1 - t.offload) + t.kv_bytes) / rt.bandwidth_bps
    cpu = t.weight_bytes * t.offload / cpu_bps if t.offload and cpu_bps else 0.0
    compute = t.flops / rt.flops
    dequant = t.quantized_weights * rt.dequant_s_per_weight
    overhead = t.layers * rt.overhead_s_per_layer
    parts = {
        "memory-bandwidth": memory,
        "compute": compute,
        "dequantization": dequant,
        "offload-link": cpu,
        "interconnect": t.link_s,
        "per-token-overhead": overhead,
    }
    bound = max(parts, key=lambda k: parts[k])
    return max(memory, compute) + dequant + cpu + overhead + t.link_s, bound


def decode_step(
    r: Resolved,
    rt: Rates,
    batch: int,
    context: float,
    offload: float = 0.0,
    cpu_bps: float = 0.0,
    link_latency_s: float = 0.0,
) -> tuple[float, str]:
    """Seconds of one decode step for `batch` sequences at `context` tokens, and the bound hit."""
    return step_time(decode_terms(r, batch, context, offload, link_latency_s), rt, cpu_bps)


def prompt_flops(r: Resolved, prompt: int) -> float:
    """FLOPs of one prompt: 2 × the weights each token multiplies, plus causal attention, plus
    the output head.

    The input embedding is a table lookup (no FLOPs), and engines that keep only the last
    position's logits (llama.cpp, vLLM, SGLang, TensorRT-LLM, transformers ≥ 4.45: the engine's
    `logits_last_token_only`) project to the vocabulary once per prompt. Counting 2 × all
    parameters per prompt token overstates small models most: the head is 12% of Llama 3.2 3B.
    """
    m = r.req.model
    head = float(m.vocab_size * m.hidden_size)
    tables = head if m.tied_embeddings else 2 * head
    body = max(m.active_params_b * 1e9 - tables, 0.0)
    head_tokens = 1 if r.engine.logits_last_token_only else prompt
    return prompt * (2 * body + _attention_flops_per_token(r, prompt / 2)) + 2 * head * head_tokens


def moe_tile_slowdown(r: Resolved, prompt: int) -> float:
    """How much slower the routed experts' GEMMs run than dense ones, per FLOP (1 = as fast).

    An engine that multiplies each expert's weights by the tokens routed to it in one ubatch
    (llama.cpp's MMQ: up to `moe_tile_tokens` = 128 tokens per weight tile) reuses each loaded
    tile for only m = ubatch × active ÷ experts tokens: 32 for Qwen3-30B-A3B (128 experts, top 8)
    at llama.cpp's 512-token ubatch, 16 for gpt-oss-120b. Loading a tile is not hidden behind
    the work on it, so a tile's time goes as 1 + tile ÷ m (the sum, not the max, of the two),
    against 1 + tile ÷ ubatch for a dense GEMM of the same step: Qwen3-30B-A3B 4.0×,
    gpt-oss-120b 7.2×, gpt-oss-20b 2.4× at ubatch 512 and 1.41× at 2048. The sum is what the
    published runs show: at 256 tokens per expert (gpt-oss-20b, -ub 2048) the experts still run
    well below dense speed, where a max would predict none (tests/data/speed_cases.toml).
    """
    moe, tile = r.req.model.moe, r.engine.moe_tile_tokens
    if moe is None or not tile:
        return 1.0
    chunk = min(prompt, r.engine.prefill_chunk_tokens or prompt)
    per_expert = chunk * moe.active_experts / moe.experts
    return (1.0 + tile / per_expert) / (1.0 + tile / chunk)


def routed_flops_per_token(r: Resolved) -> float:
    """2 × the routed-expert weights one token multiplies (shared experts excluded)."""
    m = r.req.model
    if m.moe is None:
        return 0.0
    return 2 * expert_params(m) * m.moe.active_experts / m.moe.experts


def prefill_work_flops(r: Resolved, prompt: int) -> float:
    """The prompt's FLOPs at the dense kernels' rate: routed-expert FLOPs weighed by how much
    slower their small per-expert GEMMs run (`moe_tile_slowdown`)."""
    slow = moe_tile_slowdown(r, prompt)
    extra = routed_flops_per_token(r) * prompt * (slow - 1.0) if slow > 1.0 else 0.0
    return prompt_flops(r, prompt) + extra


@dataclass(frozen=True)
class PrefillParts:
    """Seconds of one prefill by what spends them."""

    compute: float
    memory: float
    staging: float
    comm: float
    overhead: float
    attention: float = 0.0
    """Attention at its own (16-bit) rate, when that is not the GEMMs' (Rates.attention_flops);
    else its FLOPs are in `compute`."""

    @property
    def total(self) -> float:
        """GEMMs and attention overlap the weight reads; the rest runs in sequence."""
        busy = self.compute + self.attention
        return max(busy, self.memory) + self.staging + self.comm + self.overhead

    @property
    def bound(self) -> str:
        """What takes the longest."""
        parts = {
            "compute": self.compute + self.attention,
            "memory-bandwidth": self.memory + self.staging,
            "interconnect": self.comm,
        }
        return max(parts, key=lambda k: parts[k])


def prefill_parts(
    r: Resolved, rt: Rates, prompt: int, batch: int = 1, link_bps: float = 0.0
) -> PrefillParts:
    """The time of `batch` prompts of `prompt` tokens, part by part.

    Tensor parallelism adds two all-reduces of the layer's activations (tokens × hidden × 2
    bytes, ring factor 2(N−1)/N) per layer. Kernels that dequantize to a 16-bit copy before
    the GEMM add that copy's traffic in sequence with it.
    """
    m = r.req.model
    tokens = prompt * batch
    work = prefill_work_flops(r, prompt) * batch / r.tp
    attention = 0.0
    if rt.attention_flops:
        attention_work = prompt * _attention_flops_per_token(r, prompt / 2) * batch / r.tp
        work -= attention_work
        attention = attention_work / rt.attention_flops
    compute = work / rt.flops
    chunk = r.engine.prefill_chunk_tokens or tokens
    chunks = math.ceil(tokens / chunk)
    weights = weight_bytes(m, r.fmt, r.engine.embeddings_on_cpu).total
    memory = chunks * weights / r.tp / rt.bandwidth_bps
    staging = 0.0
    if rt.staging_bytes_per_weight:  # a 16-bit copy of each quantized matrix, before its GEMM
        elements = weights * 8 / r.fmt.bits_per_weight
        staging = chunks * elements * rt.staging_bytes_per_weight / r.tp / rt.bandwidth_bps
    comm = 0.0
    if r.tp > 1 and link_bps:
        ring = 2 * (r.tp - 1) / r.tp
        comm = 2 * m.layers * tokens * m.hidden_size * 2 * ring / link_bps
    overhead = chunks * m.layers * (rt.prefill_overhead_s_per_layer or rt.overhead_s_per_layer)
    return PrefillParts(compute, memory, staging, comm, overhead, attention)


def prefill_time(
    r: Resolved, rt: Rates, prompt: int, batch: int = 1, link_bps: float = 0.0
) -> tuple[float, str]:
    """Seconds to process `batch` prompts of `prompt` tokens, and the bound hit."""
    parts = prefill_parts(r, rt, prompt, batch, link_bps)
    return parts.total, parts.bound


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


@dataclass(frozen=True)
class SpeedEstimate:
    """Throughputs in tokens/s, times in seconds (train_time in hours), and what bound each."""

    bound: str
    prefill_tokens_per_s: float | None = None
    decode_tokens_per_s: float | None = None
    time_to_first_token_s: float | None = None
    serving_tokens_per_s: float | None = None
    serving_bound: str | None = None
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
    link_s = sc.link(s.gpu, r.req.gpus).allreduce_latency_us * 1e-6
    link_bps = collective_bps(s.gpu, sc, r.req.gpus)
    ctx = prompt + s.gen_tokens / 2
    step, bound = decode_step(r, rt, r.req.batch, ctx, s.offload_fraction, cpu_bps, link_s)
    pre, _ = prefill_time(r, rt, prompt, 1, link_bps)
    out = SpeedEstimate(
        bound=bound,
        prefill_tokens_per_s=prompt / pre,
        decode_tokens_per_s=r.req.batch / step,
        time_to_first_token_s=pre,
        factors=rt.factors,
    )
    if s.concurrency:
        out = _serving(r, rt, s, prompt, out, cpu_bps, (link_s, link_bps))
    kinds = ("decode", "prefill", "serving")
    return dataclasses.replace(out, band=bands_of(out, sc, kinds, r.engine.id, s.gpu))


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
    """
    link_s, link_bps = link
    c = s.concurrency or 1
    if s.max_batch is not None and c > s.max_batch:
        raise UserError("speed.concurrency_too_high", concurrency=c, max=s.max_batch)
    step, bound = decode_step(
        r, rt, c, prompt + s.gen_tokens / 2, s.offload_fraction, cpu_bps, link_s
    )
    pre, _ = prefill_time(r, rt, prompt, c, link_bps)
    cycle = max(s.gen_tokens - 1, 0) * step + pre
    return SpeedEstimate(
        **{
            **base.__dict__,
            "serving_tokens_per_s": c * s.gen_tokens / cycle,
            "serving_bound": bound,
        }
    )


def collective_bps(gpu: Gpu, sc: SpeedConstants, gpus: int) -> float:
    """Achievable all-reduce bandwidth between `gpus` of this card (link rate × bus share)."""
    return link_bandwidth_bps(gpu, sc, gpus) * sc.link(gpu, gpus).bus_bandwidth_fraction


def pcie_bps(gpu: Gpu, sc: SpeedConstants) -> float:
    """One direction of a x16 link of the card's PCIe generation."""
    per_gen = sc.host.pcie_gbps_per_gen_x16
    return per_gen.get(str(gpu.pcie_gen or 4), per_gen["4"]) * 1e9


def link_bandwidth_bps(gpu: Gpu, sc: SpeedConstants, gpus: int = 1) -> float:
    """Per-direction bandwidth between GPUs: NVLink/IF when present (half the bidirectional),
    PCIe otherwise, the network NIC when the job spans hosts."""
    if gpus > gpu.max_per_host:
        return min(sc.host.network_gbps.values()) * 1e9
    if gpu.interconnect != "none" and gpu.interconnect_gbps:
        return gpu.interconnect_gbps / 2 * 1e9
    return pcie_bps(gpu, sc)


# Training lives in train_speed.py; callers import it from here.
from gpuwise.estimate.train_speed import comm_bytes_per_step as comm_bytes_per_step  # noqa: E402
from gpuwise.estimate.train_speed import train_flops as train_flops  # noqa: E402
from gpuwise.estimate.train_speed import (  # noqa: E402
    train_flops_per_token as train_flops_per_token,
)
from gpuwise.estimate.train_speed import training_speed as training_speed  # noqa: E402
