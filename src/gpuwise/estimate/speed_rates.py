"""Achievable rates of one card for one engine and weight format: datasheet peaks × the
engine's fitted shares (data/speed_fitted.toml), never above the architecture's measured matmul
ceiling (estimate/speed.py uses them for decode, prefill and serving).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from gpuwise.catalog.schema import Gpu
from gpuwise.catalog.schema_memory import WeightFormat
from gpuwise.errors import UserError
from gpuwise.estimate.resolve import Resolved
from gpuwise.estimate.speed_constants import (
    SpeedConstants,
    backend_of,
    decode_memory_key,
    engine_family,
    kernel_arch,
)


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
    mixed_steps: bool = False
    """Prompt chunks ride in decode steps (speed.toml `[[step_launch]]` mixed_steps)."""
    expert_bandwidth_bps: float | None = None
    """The rate a decode step reads a MoE's routed experts at; None: `bandwidth_bps`."""
    kv_read_factor: float = 1.0
    """A decode step's KV read costs this many times its bytes (speed.toml `[[kv_read_cost]]`:
    an FP8 cache whose attention kernel dequantizes element by element reads no faster than a
    16-bit one)."""


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


def half_rate(sc: SpeedConstants, gpu: Gpu, engine: str, backend: str) -> float:
    """The engine's achieved 16-bit tensor rate on this card: where a W8A8 FP8 model's attention
    runs, and the floor of its FP8 GEMMs."""
    half_peak, half = tensor_peak(gpu, "bf16", sc)
    half_pre = sc.prefill_fraction(engine, backend, kernel_arch(gpu), half)
    return half_peak * min(half_pre.fraction, sc.matmul_fraction(gpu))


def _launch_costs(
    sc: SpeedConstants, engine: str, era: str, backend: str, eager: bool
) -> tuple[Any, Any]:
    """Per-layer launch cost of a decode step and of a prefill step: engines that capture CUDA
    graphs for decode batches only pay the eager cost of their era on a prompt's pass."""
    over = sc.overhead(sc.eager_key(engine) if eager else era, backend)
    eager_prefill = sc.launch_class(era) == "graphs" and not sc.prefill_graphs(era)
    over_prefill = sc.overhead(sc.eager_key(engine), backend) if eager_prefill else over
    return over, over_prefill


def _prefill_flops(
    r: Resolved, sc: SpeedConstants, gpu: Gpu, engine: str, backend: str, built: dt.date | None
) -> tuple[float, float | None, str, float, float, list[Any], Any]:
    """The GEMMs' achieved rate, the attention's own rate (W8A8 FP8 only), the tensor rate
    used, the fraction and ceiling applied, and the looked-up entries (to cite)."""
    kind = kernel_kind(r.fmt)
    path = sc.kernel_rate(engine, kind, built, backend)
    peak, rate = tensor_peak(gpu, path.rate, sc)
    group = prefill_group_rate(rate, kind, path.weight_only_gemm)
    moe = r.req.model.moe is not None
    pre = sc.prefill_fraction(engine, backend, kernel_arch(gpu), group, moe)
    ceiling = sc.matmul_fraction(gpu)
    fraction = min(pre.fraction, ceiling)
    flops = peak * fraction
    attention = None
    if kind == "fp8" and rate == "fp8":  # W8A8 never runs below the engine's 16-bit GEMMs
        attention = half_rate(sc, gpu, engine, backend)
        flops = max(flops, attention)
    return flops, attention, rate, fraction, ceiling, [path, pre], path


def _factors(
    r: Resolved,
    sc: SpeedConstants,
    gpu: Gpu,
    dec: Any,
    over: Any,
    prefill: tuple[str, float, float],
) -> dict[str, Any]:
    """What `gpuwise estimate` shows beside the rates (fractions used and their sources)."""
    rate, fraction, ceiling = prefill
    moe_experts = bool(dec.expert_bandwidth_fraction and r.req.model.moe)
    return {
        "bandwidth_fraction": round(dec.bandwidth_fraction, 3),
        **(
            {"expert_bandwidth_fraction": round(dec.expert_bandwidth_fraction, 3)}
            if moe_experts
            else {}
        ),
        "overhead_ms_per_layer": round(over.ms_per_layer, 4),
        "prefill_rate": rate,
        "flops_fraction": round(fraction, 3),
        "matmul_ceiling": round(ceiling, 3),
        "power_derate": round(sc.power_derate(gpu), 3),
    }


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
    over, over_prefill = _launch_costs(sc, engine, era, backend, eager)
    flops, attention, rate, fraction, ceiling, looked, path = _prefill_flops(
        r, sc, gpu, engine, backend, built
    )
    deq = sc.dequant_cost(era, kind, r.fmt.id) if kind != "float" else None
    vector = vector_flops(gpu)
    per_weight = deq.flops_per_weight / vector if deq and vector else 0.0
    used = [dec, over, *looked] + ([deq] if deq else [])
    kv_factor, kv_sources = sc.kv_read_factor(engine, backend, r.kv.id, built)
    factors = _factors(r, sc, gpu, dec, over, (rate, fraction, ceiling))
    factors["sources"] = sorted(
        {s for u in used for s in u.source_ids()} | set(sc.power_source_ids(gpu)) | set(kv_sources)
    )
    bandwidth = gpu.memory_bandwidth_gbps * 1e9
    return Rates(
        bandwidth_bps=bandwidth * dec.bandwidth_fraction,
        flops=flops,
        overhead_s_per_layer=over.ms_per_layer / 1000,
        prefill_overhead_s_per_layer=over_prefill.ms_per_layer / 1000,
        dequant_s_per_weight=per_weight,
        staging_bytes_per_weight=path.staging_bytes_per_weight,
        attention_flops=attention,
        mixed_steps=sc.mixed_steps(era) and not eager,
        expert_bandwidth_bps=(
            bandwidth * dec.expert_bandwidth_fraction
            if dec.expert_bandwidth_fraction and r.req.model.moe
            else None
        ),
        factors=factors,
        kv_read_factor=kv_factor,
    )
