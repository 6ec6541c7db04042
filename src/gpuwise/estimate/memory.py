"""VRAM per GPU: the sum of named parts, for inference and fine-tuning.

allocated_peak_bytes is what `torch.cuda.max_memory_allocated()` reports: weights, quantization
constants, adapters, gradients, optimizer states, activations, logits, KV cache and framework
workspace. device_total_bytes is what nvidia-smi shows: that plus the caching allocator's
reserve and the CUDA context. Every constant comes from data/memory.toml (with its source).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpuwise.catalog.schema import Gpu
from gpuwise.estimate import activations as act
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.features import TRAINING_NOTES, feature_notes
from gpuwise.estimate.kv import kv_cache_bytes
from gpuwise.estimate.layout import (
    DP_ATTENTION,
    replicated_attention_bytes,
    sequences_per_gpu,
)
from gpuwise.estimate.request import MemoryRequest
from gpuwise.estimate.resolve import Resolved, resolve
from gpuwise.estimate.weights import lora_params, module_params, param_split, weight_bytes

MIB = 1024**2
GIB = 1024**3
BREAKDOWN_KEYS = (
    "weights",
    "quant_constants",
    "lora_adapters",
    "gradients",
    "optimizer_states",
    "activations",
    "logits",
    "kv_cache",
    "workspace",
    "allocator_reserve",
    "cuda_context",
)
OUTSIDE_ALLOCATOR = ("allocator_reserve", "cuda_context")


@dataclass(frozen=True)
class MemoryEstimate:
    """Bytes per GPU by part, the two totals, an uncertainty band and the inputs used."""

    breakdown: dict[str, int]
    allocated_peak_bytes: int
    device_total_bytes: int
    low_bytes: int
    high_bytes: int
    inputs: dict[str, Any]
    notes: tuple[tuple[str, dict[str, Any]], ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)


def gpu_capacity_bytes(gpu: Gpu) -> int:
    """Usable memory of one device: vendors' "24 GB" cards hold 24 GiB (nvidia-smi: 24564 MiB).

    Unified-memory machines (Apple Silicon) let the GPU wire only a share of it
    (`usable_memory_fraction`, Metal's recommended working set); the rest stays with the OS.
    """
    return int(gpu.memory_gb * (gpu.usable_memory_fraction or 1.0) * GIB)


def estimate_memory(
    req: MemoryRequest, c: MemoryConstants, gpu: Gpu | None = None
) -> MemoryEstimate:
    """Estimate the memory one GPU needs for `req` (see module docstring for the two totals)."""
    r = resolve(req, c)
    parts = _training_parts(r, c) if req.training else _inference_parts(r, c)
    host_offload = parts.pop(HOST_OFFLOAD, 0.0)
    allocated = sum(parts.values())
    parts["allocator_reserve"] = allocated * r.engine.allocator_reserve_fraction
    parts["cuda_context"] = r.engine.cuda_context_mib * MIB
    notes = feature_notes(req.model, r.kv.bytes_per_element, r.tp, r.context)
    if req.training:  # a cache and its state exist only when serving
        notes = [n for n in notes if n[0] in TRAINING_NOTES]
    # an encoder has no KV cache for the engine to fill its preallocated pool with
    if (
        gpu is not None
        and r.engine.preallocate_fraction
        and not req.training
        and not req.model.bidirectional
    ):
        _fill_preallocated_pool(parts, gpu, r.engine.preallocate_fraction, notes)
    est = _finish(parts, r, notes)
    if host_offload:
        est.extra[HOST_OFFLOAD] = round(host_offload)
    return est


HOST_OFFLOAD = "host_offload_bytes"
"""Bytes a ZeRO-Offload run keeps in the hosts' memory (all devices' shares together)."""


def _host_offload_bytes(before: dict[str, float], r: Resolved) -> float:
    """What DeepSpeed's offload moves to system RAM for the whole job: the optimizer states,
    and the FP32 master weights (ZeRO-2 offload of a full fine-tune: the 16-bit copy stays on
    each GPU) or every weight (ZeRO-3 offload), from the unsharded model states `before`."""
    if r.strategy == "zero3-offload":
        return before["optimizer_states"] + before["weights"] + before["lora_adapters"]
    master = r.req.model.params_b * 1e9 * r.precision.weight_bytes  # the FP32 copy
    return before["optimizer_states"] + (master if r.req.mode == "full" else 0.0)


def _fill_preallocated_pool(
    parts: dict[str, float], gpu: Gpu, fraction: float, notes: list[tuple[str, dict[str, Any]]]
) -> None:
    """vLLM/SGLang/TensorRT-LLM take a fixed share of the GPU and fill the rest with KV blocks."""
    target = fraction * gpu_capacity_bytes(gpu)
    spare = target - sum(parts.values())
    if spare > 0:
        parts["kv_cache"] += spare
        notes.append(("est.note_preallocated", {"fraction": fraction}))


def _finish(
    parts: dict[str, float], r: Resolved, notes: list[tuple[str, dict[str, Any]]]
) -> MemoryEstimate:
    breakdown = {k: round(parts.get(k, 0.0)) for k in BREAKDOWN_KEYS}
    total = sum(breakdown.values())
    allocated = total - sum(breakdown[k] for k in OUTSIDE_ALLOCATOR)
    uncertain = (
        0.3 * (breakdown["activations"] + breakdown["logits"] + breakdown["workspace"])
        + breakdown["allocator_reserve"]
        + 0.5 * breakdown["cuda_context"]
        + 0.03 * breakdown["weights"]
    )
    if r.strategy == DP_ATTENTION:
        notes.append(("est.note_dp_attention", {"gpus": r.tp, "engine": r.engine.id}))
    if r.context > r.req.model.max_context:
        notes.append(
            ("est.note_beyond_context", {"context": r.context, "max": r.req.model.max_context})
        )
    return MemoryEstimate(
        breakdown=breakdown,
        allocated_peak_bytes=allocated,
        device_total_bytes=total,
        low_bytes=int(total - uncertain),
        high_bytes=int(total + uncertain),
        inputs=r.as_dict(),
        notes=tuple(notes),
    )


def _inference_parts(r: Resolved, c: MemoryConstants) -> dict[str, float]:
    """Weights, KV cache, prefill activations, logits and workspace for serving."""
    m, req, split = r.req.model, r.req, r.tp * r.layer_split
    wb = weight_bytes(m, r.fmt, r.engine.embeddings_on_cpu)
    sequences = sequences_per_gpu(r.strategy, r.tp, req.batch)
    kv = (
        kv_cache_bytes(
            m, r.context, sequences, r.kv.bytes_per_element, r.engine.kv_latent_for_mla, r.tp
        )
        / r.layer_split
    )
    replicated = replicated_attention_bytes(r.strategy, r.tp, m, r.fmt)
    tokens = req.batch * r.prompt_tokens
    if r.engine.prefill_chunk_tokens:
        tokens = min(tokens, r.engine.prefill_chunk_tokens)
    eager = r.attention == "eager"
    parts = {
        "weights": wb.weights / split + replicated / r.layer_split,
        "quant_constants": wb.quant_constants / split,
        "kv_cache": kv,
        # fp32 logits: the last token of each sequence, or every prompt token (old transformers)
        "logits": (req.batch if r.engine.logits_last_token_only else tokens) * m.vocab_size * 4.0,
        "workspace": r.engine.workspace_mib * MIB,
    }
    if r.engine.embeddings_on_cpu:  # llama.cpp: one compute buffer sized for a ubatch of logits
        parts["workspace"] += tokens * m.vocab_size * 4.0
        if r.attention != "flash":
            parts["workspace"] += tokens * r.context * m.heads * 4.0
        parts["logits"] = 0.0
    else:
        parts["activations"] = act.prefill_activation_bytes(
            m, tokens, min(r.prompt_tokens, tokens), c.activation, eager, r.tp
        )
    return parts


def trainable_params(r: Resolved) -> tuple[float, float]:
    """(adapter + trained-module parameters, parameters whose weights train in full)."""
    m, req = r.req.model, r.req
    if req.mode == "full":
        return 0.0, m.params_b * 1e9
    modules = req.train_modules or (("lm_head",) if req.mode == "freeze" else ())
    extra = module_params(m, modules)
    if req.mode == "freeze":
        return 0.0, extra
    return lora_params(m, req.lora_rank, req.lora_targets) + extra, 0.0


def _training_parts(r: Resolved, c: MemoryConstants) -> dict[str, float]:
    """Model states sharded by the strategy, plus activations and logits of one micro-batch."""
    m, req, prec, opt = r.req.model, r.req, r.precision, r.optimizer
    adapters, full = trainable_params(r)
    trainable = adapters + full
    state_bytes = opt.states * (opt.bytes_per_state or prec.state_bytes)
    if req.mode in ("full", "freeze"):
        weights = m.params_b * 1e9 * (prec.weight_bytes + (prec.master_bytes if full else 0.0))
        qconst = 0.0
    else:
        wb = weight_bytes(m, r.fmt)
        weights, qconst = wb.weights, wb.quant_constants
    grads = trainable * prec.grad_bytes
    if req.fused_optimizer_step:  # step inside backward: one parameter's gradient at a time
        embedding, _, _, _ = param_split(m)
        grads = min(grads, max(embedding, m.hidden_size * m.intermediate_size) * prec.grad_bytes)
    parts = {
        "weights": weights,
        "quant_constants": qconst,
        "lora_adapters": adapters * (prec.weight_bytes + prec.master_bytes),
        "gradients": grads,
        # paged optimizers (bitsandbytes) keep states in CUDA managed memory that moves to CPU
        # RAM under pressure, outside PyTorch's allocator
        "optimizer_states": 0.0 if opt.pageable else trainable * state_bytes,
    }
    before = dict(parts)
    _shard(parts, r, c)
    if r.strategy.endswith("offload"):
        parts[HOST_OFFLOAD] = _host_offload_bytes(before, r)
    tokens = req.batch * req.seq_len
    parts["activations"] = act.train_activation_bytes(
        m,
        tokens,
        req.seq_len,
        prec.activation_bytes,
        c.activation,
        req.grad_checkpointing,
        r.attention == "eager",
        r.tp,
        _saved_inputs(r),
        r.engine.norm_fp32_upcast,
    )
    parts["logits"] = act.train_logits_bytes(
        m, tokens, c.activation, r.engine.chunked_cross_entropy or req.fused_loss
    )
    if r.fmt.kind not in ("float",):  # a dequantized weight matrix in 16-bit during matmuls
        parts["workspace"] = 2.0 * m.hidden_size * max(m.intermediate_size, m.vocab_size // 4)
    return parts


def _saved_inputs(r: Resolved) -> act.SavedInputs:
    """Which linear inputs backward needs: all for full training and 4-bit bases, else adapters'."""
    req = r.req
    if req.mode == "full" or r.fmt.kind in ("bnb", "gptq", "awq", "int8"):
        return act.SavedInputs()
    targets = set(req.lora_targets) if req.mode in ("lora", "qlora") else set()
    return act.SavedInputs(
        attention_in=bool(targets & {"q", "k", "v"}),
        mlp_in=bool(targets & {"gate", "up"}),
        down_in="down" in targets,
    )


def _shard(parts: dict[str, float], r: Resolved, c: MemoryConstants) -> None:
    """Divide model states across GPUs the way DDP, ZeRO, FSDP, TP and PP do; hybrid sharding
    (hsdp) as FSDP over one machine's devices, every machine a full copy."""
    n, s = r.req.gpus, r.strategy
    if s == "hsdp":
        n, s = min(n, r.req.shard_gpus or n), "fsdp"
    if s in ("tp", "dp-attention", "pp"):
        for k in ("weights", "quant_constants", "lora_adapters", "gradients", "optimizer_states"):
            parts[k] /= n
        return
    if s in ("zero1", "zero2", "zero3", "fsdp", "zero2-offload", "zero3-offload"):
        parts["optimizer_states"] = 0.0 if s.endswith("offload") else parts["optimizer_states"] / n
    if s in ("zero1", "zero2") and r.req.mode == "full" and r.precision.master_bytes:
        # the FP32 master weights belong to the optimizer, partitioned with its states: ZeRO-1
        # keeps 2Ψ + 2Ψ + KΨ/N of model states, K = 12 for Adam's FP32 weights, momentum and
        # variance (Rajbhandari et al., arXiv:1910.02054 §5.1); the 16-bit copy stays whole.
        # memory.toml's precision `weight_bytes` is that FP32 copy, `master_bytes` the 16-bit one
        fp32_master = r.req.model.params_b * 1e9 * r.precision.weight_bytes
        parts["weights"] -= fp32_master * (1 - 1 / n)
    if s in ("zero2", "zero3", "fsdp", "zero2-offload", "zero3-offload"):
        parts["gradients"] /= n
    if s in ("zero3", "fsdp", "zero3-offload"):
        _, _, linear, _ = param_split(r.req.model)
        layer_params = linear / r.req.model.layers * c.activation.zero3_prefetch_layers
        stored = 2.0 if r.req.mode == "full" else r.fmt.bits_per_weight / 8
        keep = 0.0 if s == "zero3-offload" else 1.0 / n
        for k in ("weights", "quant_constants", "lora_adapters"):
            parts[k] *= keep
        parts["weights"] += layer_params * stored  # gathered (unsharded) layers in use
        if r.req.mode == "full":  # their full gradients before the reduce-scatter
            parts["gradients"] += layer_params * r.precision.grad_bytes
    elif s == "zero2-offload" and r.req.mode == "full":
        parts["weights"] = r.req.model.params_b * 1e9 * 2.0  # fp16 copy stays, fp32 master on CPU
