"""Tokens per second and training time from achievable (not datasheet) rates.

Decode is bound by memory bandwidth: each token reads the active weights and the KV cache
(bytes ÷ achievable bandwidth), unless the batch is large enough to be compute-bound
(2 × active parameters FLOPs per token). Prefill is compute-bound: 2 × active parameters plus
attention FLOPs per token over achievable FLOPS. Training takes 6 × parameters FLOPs per token
(8 × with activation recomputation; LoRA skips the weight gradients: 4 ×), over GPUs × dense
peak × MFU, plus the gradient / parameter traffic the strategy puts on the actual link.
Every efficiency is catalog data (data/speed.toml) with its source.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from gpuwise.catalog.schema import Gpu
from gpuwise.errors import UserError
from gpuwise.estimate.kv import kv_cache_bytes
from gpuwise.estimate.memory import trainable_params
from gpuwise.estimate.resolve import Resolved
from gpuwise.estimate.speed_constants import SpeedConstants, backend_of
from gpuwise.estimate.weights import param_split, weight_bytes


@dataclass(frozen=True)
class Rates:
    """Achievable rates of one GPU for one engine and weight format."""

    bandwidth_bps: float
    flops: float
    overhead_s_per_layer: float
    factors: dict[str, Any] = field(default_factory=dict)


def peak_half_flops(gpu: Gpu) -> float:
    """Dense 16-bit tensor FLOPS (FP32 rate where the device has no faster 16-bit unit)."""
    tf = gpu.tflops
    value = tf.bf16 or tf.fp16 or tf.fp32
    if not value:
        raise UserError("speed.no_flops", gpu=gpu.id)
    return value * 1e12


def rates(r: Resolved, sc: SpeedConstants, gpu: Gpu) -> Rates:
    """Datasheet peaks × the engine's and the kernel's achievable fractions."""
    if not gpu.memory_bandwidth_gbps:
        raise UserError("speed.no_bandwidth", gpu=gpu.id)
    eng = sc.engine(r.engine.id, backend_of(gpu))
    kern = sc.kernel(r.fmt.kind if r.fmt.kind != "gguf" or r.fmt.bits_per_weight < 16 else "float")
    matmul = sc.matmul_fraction(gpu)
    bw_fraction = eng.decode_bandwidth_fraction * kern.decode_factor
    flops = peak_half_flops(gpu) * eng.prefill_flops_fraction * matmul
    if eng.prefill_tflops_cap:  # kernels that do not use a big GPU's newer tensor cores
        flops = min(flops, eng.prefill_tflops_cap * 1e12)
    flops *= kern.prefill_factor
    flops_fraction = flops / peak_half_flops(gpu)
    return Rates(
        bandwidth_bps=gpu.memory_bandwidth_gbps * 1e9 * bw_fraction,
        flops=flops,
        overhead_s_per_layer=eng.decode_overhead_ms_per_layer / 1000,
        factors={
            "bandwidth_fraction": round(bw_fraction, 3),
            "flops_fraction": round(flops_fraction, 3),
            "engine_efficiency": f"{eng.engine}/{eng.backend}",
            "sources": sorted({eng.source, kern.source}),
        },
    )


def _read_bytes_per_token(r: Resolved, batch: int) -> float:
    """Weight bytes one decode step reads on one GPU (MoE: the experts the batch touches)."""
    m = r.req.model
    wb = weight_bytes(m, r.fmt, r.engine.embeddings_on_cpu)
    total = wb.total
    embedding, _, linear, counts = param_split(m)
    bits = 16.0 if r.fmt.quantizes == "linear" else r.fmt.bits_per_weight
    if wb.embedding_on_gpu and not m.tied_embeddings:
        total -= embedding * bits / 8  # the input embedding is a lookup of one row
    if m.moe and counts.ffn_experts:
        # the share of experts a batch routes to: 1 − (1 − k/E)^batch
        touched = 1 - (1 - m.moe.active_experts / m.moe.experts) ** batch
        scale = linear / max(1, counts.total - counts.embedding - counts.lm_head)
        expert_bytes = counts.ffn_experts * scale * r.fmt.bits_per_weight / 8
        total -= expert_bytes * (1 - touched)
    return total / r.tp


def _attention_flops_per_token(r: Resolved, context: float) -> float:
    """QKᵀ and attention×V: 2 × 2 × layers × context × heads × head_dim (context = keys seen)."""
    m = r.req.model
    return 4.0 * m.layers * context * m.heads * m.head_dim


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
    m = r.req.model
    weights = _read_bytes_per_token(r, batch)
    kv = kv_cache_bytes(
        m, max(1, int(context)), batch, r.kv.bytes_per_element, r.engine.kv_latent_for_mla, r.tp
    )
    memory = (weights * (1 - offload) + kv) / rt.bandwidth_bps
    cpu = weights * offload / cpu_bps if offload else 0.0
    flops = batch * (2 * m.active_params_b * 1e9 + _attention_flops_per_token(r, context)) / r.tp
    compute = flops / rt.flops
    link = 2 * m.layers * link_latency_s if r.tp > 1 else 0.0
    overhead = m.layers * rt.overhead_s_per_layer + link
    parts = {
        "memory-bandwidth": memory,
        "compute": compute,
        "offload-link": cpu,
        "interconnect": link,
    }
    bound = max(parts, key=lambda k: parts[k])
    return max(memory, compute) + cpu + overhead, bound


def prefill_time(
    r: Resolved, rt: Rates, prompt: int, batch: int = 1, link_bps: float = 0.0
) -> tuple[float, str]:
    """Seconds to process `batch` prompts of `prompt` tokens, and the bound hit.

    Tensor parallelism adds two all-reduces of the layer's activations (tokens × hidden × 2
    bytes, ring factor 2(N−1)/N) per layer.
    """
    m = r.req.model
    tokens = prompt * batch
    flops = tokens * (2 * m.active_params_b * 1e9 + _attention_flops_per_token(r, prompt / 2))
    compute = flops / r.tp / rt.flops
    chunk = r.engine.prefill_chunk_tokens or tokens
    chunks = math.ceil(tokens / chunk)
    weights = weight_bytes(m, r.fmt, r.engine.embeddings_on_cpu).total
    memory = chunks * weights / r.tp / rt.bandwidth_bps
    comm = 0.0
    if r.tp > 1 and link_bps:
        ring = 2 * (r.tp - 1) / r.tp
        comm = 2 * m.layers * tokens * m.hidden_size * 2 * ring / link_bps
    overhead = chunks * m.layers * rt.overhead_s_per_layer
    parts = {"compute": compute, "memory-bandwidth": memory, "interconnect": comm}
    return max(compute, memory) + comm + overhead, max(parts, key=lambda k: parts[k])


def train_flops_per_token(r: Resolved) -> float:
    """6N (full) or 4N (adapters: no weight gradients), +2N with recomputation, plus attention."""
    m, req = r.req.model, r.req
    active = m.active_params_b * 1e9
    passes = 6.0 if req.mode == "full" else 4.0
    if req.grad_checkpointing:
        passes += 2.0
    attention = _attention_flops_per_token(r, req.seq_len / 2) * passes / 2
    return passes * active + attention


def comm_bytes_per_step(r: Resolved) -> float:
    """Bytes each GPU sends per optimizer step: ring all-reduce ≈ 2(N−1)/N of the payload."""
    req, m, n = r.req, r.req.model, r.req.gpus
    if n == 1:
        return 0.0
    ring = 2 * (n - 1) / n
    params = m.params_b * 1e9
    if r.strategy in ("zero3", "fsdp", "zero3-offload"):
        return 1.5 * ring * params * 2  # all-gather forward and backward, reduce-scatter grads
    if r.strategy == "tp":
        act = req.batch * req.seq_len * m.hidden_size * 2
        return 4 * m.layers * act * ring
    adapters, full = trainable_params(r)
    return ring * (adapters + full) * 2


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

    def as_dict(self) -> dict[str, Any]:
        """The `speed` object of `gpuwise estimate --json` (None fields left out)."""
        return {k: v for k, v in self.__dict__.items() if v is not None}


def inference_speed(r: Resolved, sc: SpeedConstants, s: SpeedInputs) -> SpeedEstimate:
    """Prefill, decode, time to first token and (with concurrency) serving throughput."""
    rt = rates(r, sc, s.gpu)
    prompt = r.prompt_tokens if r.req.prompt_tokens else max(1, r.context - s.gen_tokens)
    cpu_bps = (s.cpu_bandwidth_gbps or sc.host.cpu_memory_bandwidth_gbps) * 1e9
    link_s = sc.link(s.gpu, r.req.gpus).allreduce_latency_us * 1e-6
    ctx = prompt + s.gen_tokens / 2
    step, bound = decode_step(r, rt, r.req.batch, ctx, s.offload_fraction, cpu_bps, link_s)
    link_bps = (
        _link_bandwidth(s.gpu, sc, r.req.gpus) * sc.link(s.gpu, r.req.gpus).bus_bandwidth_fraction
    )
    pre, _ = prefill_time(r, rt, prompt, 1, link_bps)
    out = SpeedEstimate(
        bound=bound,
        prefill_tokens_per_s=prompt / pre,
        decode_tokens_per_s=r.req.batch / step,
        time_to_first_token_s=pre + step,
        factors=rt.factors,
    )
    if s.concurrency:
        out = _serving(r, rt, s, prompt, out, cpu_bps, link_s)
    return out


def _serving(
    r: Resolved,
    rt: Rates,
    s: SpeedInputs,
    prompt: int,
    base: SpeedEstimate,
    cpu_bps: float,
    link_s: float,
) -> SpeedEstimate:
    """Output tokens/s with `concurrency` requests in flight (prefill interleaved with decode)."""
    c = s.concurrency or 1
    if s.max_batch is not None and c > s.max_batch:
        raise UserError("speed.concurrency_too_high", concurrency=c, max=s.max_batch)
    step, bound = decode_step(
        r, rt, c, prompt + s.gen_tokens / 2, s.offload_fraction, cpu_bps, link_s
    )
    pre, _ = prefill_time(r, rt, prompt, c)
    cycle = s.gen_tokens * step + pre
    return SpeedEstimate(
        **{
            **base.__dict__,
            "serving_tokens_per_s": c * s.gen_tokens / cycle,
            "serving_bound": bound,
        }
    )


def training_speed(r: Resolved, sc: SpeedConstants, s: SpeedInputs) -> SpeedEstimate:
    """Step time, tokens/s and (with a token budget) total hours of fine-tuning."""
    gpu, req = s.gpu, r.req
    mfu, mfu_sources = sc.mfu(req.mode, gpu)
    flops = peak_half_flops(gpu) * mfu
    replicas = req.gpus // r.tp
    tokens = req.batch * req.seq_len
    compute = tokens * train_flops_per_token(r) / (flops * r.tp)
    link = sc.link(gpu, req.gpus)
    link_bps = _link_bandwidth(gpu, sc, req.gpus) * link.bus_bandwidth_fraction
    comm = comm_bytes_per_step(r) / link_bps if req.gpus > 1 else 0.0
    exposed = max(0.0, comm - link.overlap_fraction * compute)
    offload = 0.0
    if r.strategy.endswith("offload"):
        adapters, full = trainable_params(r)
        offload = 2 * (adapters + full) * 2 / (_pcie_bps(gpu, sc) * link.bus_bandwidth_fraction)
    step = compute + exposed + offload
    parts = {"compute": compute, "interconnect": exposed, "offload-link": offload}
    tps = replicas * tokens / step
    hours = s.train_tokens * s.epochs / tps / 3600 if s.train_tokens else None
    factors = {"mfu": round(mfu, 3), "sources": sorted({*mfu_sources, link.source})}
    return SpeedEstimate(
        bound=max(parts, key=lambda k: parts[k]),
        train_tokens_per_s=tps,
        step_time_s=step,
        train_time_h=hours,
        factors=factors,
    )


def _pcie_bps(gpu: Gpu, sc: SpeedConstants) -> float:
    """One direction of a x16 link of the card's PCIe generation."""
    per_gen = sc.host.pcie_gbps_per_gen_x16
    return per_gen.get(str(gpu.pcie_gen or 4), per_gen["4"]) * 1e9


def _link_bandwidth(gpu: Gpu, sc: SpeedConstants, gpus: int = 1) -> float:
    """Per-direction bandwidth between GPUs: NVLink/IF when present (half the bidirectional),
    PCIe otherwise, the network NIC when the job spans hosts."""
    if gpus > gpu.max_per_host:
        return min(sc.host.network_gbps.values()) * 1e9
    if gpu.interconnect != "none" and gpu.interconnect_gbps:
        return gpu.interconnect_gbps / 2 * 1e9
    return _pcie_bps(gpu, sc)
