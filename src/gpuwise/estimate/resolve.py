"""Fill a request's defaults from the model and engine, and check the combination makes sense."""

from __future__ import annotations

from dataclasses import dataclass

from gpuwise.catalog.schema_memory import Engine, KvDtype, Optimizer, Precision, WeightFormat
from gpuwise.errors import UserError
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.layout import DP_ATTENTION, can_dp_attention, prefers_dp_attention
from gpuwise.estimate.request import MemoryRequest, check_tp, validate

DEFAULT_INFERENCE_CONTEXT = 4096
"""Context assumed for inference when neither the user nor the engine sets one (a chat turn)."""


@dataclass(frozen=True)
class Resolved:
    """A request with every default filled and every name turned into its constants."""

    req: MemoryRequest
    fmt: WeightFormat
    kv: KvDtype
    optimizer: Optimizer
    precision: Precision
    engine: Engine
    context: int
    prompt_tokens: int
    attention: str
    strategy: str
    tp: int
    layer_split: int

    def as_dict(self) -> dict[str, object]:
        """The inputs as actually used (shown in --json as `inputs`)."""
        r = self.req
        out: dict[str, object] = {
            "model": r.model.id,
            "mode": r.mode,
            "quant": self.fmt.id,
            "engine": self.engine.id,
            "batch": r.batch,
            "gpus": r.gpus,
            "strategy": self.strategy,
            "attention": self.attention,
        }
        if r.training:
            out.update(
                seq_len=r.seq_len,
                optimizer=self.optimizer.id,
                precision=self.precision.id,
                grad_checkpointing=r.grad_checkpointing,
            )
            if r.mode in ("lora", "qlora"):
                out.update(lora_rank=r.lora_rank, lora_targets=list(r.lora_targets))
            if r.train_modules:
                out["train_modules"] = list(r.train_modules)
        else:
            out.update(context=self.context, prompt_tokens=self.prompt_tokens, kv_dtype=self.kv.id)
        return out


def _default_engine(req: MemoryRequest) -> str:
    """GGUF models and GGUF quant names (q4_k_m …) are served by llama.cpp; the rest by HF."""
    gguf = req.model.origin == "gguf" or (req.quant or "").lower().startswith("q")
    return "llama.cpp" if gguf and not req.training else "transformers"


def _default_quant(req: MemoryRequest, engine: Engine) -> str:
    if req.model.origin == "gguf" and req.model.gguf_file_type:
        return req.model.gguf_file_type
    if req.model.weight_format_hint and not req.training:
        return req.model.weight_format_hint  # the checkpoint's own format (fp8, int4-gptq, mxfp4)
    if req.mode == "qlora":
        return "nf4"
    if engine.id in ("llama.cpp", "ollama") and not req.training:
        return "q4_k_m"
    return "bf16"


def _strategy(req: MemoryRequest, engine: Engine) -> tuple[str, int, int]:
    """The parallel layout: (strategy, tensor-parallel degree, layer-split degree)."""
    strategy = req.strategy
    if strategy == "none" and req.gpus > 1:
        strategy = "ddp" if req.training else "tp" if engine.preallocate_fraction else "device-map"
    tp = req.gpus if strategy in ("tp", DP_ATTENTION) else 1
    split = req.gpus if strategy in ("pp", "device-map") else 1
    return strategy, tp, split


def resolve(req: MemoryRequest, c: MemoryConstants) -> Resolved:
    """Check the request and fill its defaults; contradictions raise a UserError."""
    validate(req)
    engine = c.engine(req.engine or _default_engine(req))
    if req.ubatch:  # the user's prefill step (llama.cpp -ub): compute buffers and MoE tiles
        engine = engine.model_copy(update={"prefill_chunk_tokens": req.ubatch})
    fmt = c.weight_format(req.quant or _default_quant(req, engine))
    _check_format(req, fmt)
    strategy, tp, split = _strategy(req, engine)
    if strategy in ("tp", DP_ATTENTION):
        check_tp(req.model, tp)
    if strategy == DP_ATTENTION and not can_dp_attention(req.model, engine, req.gpus):
        raise UserError("estimate.no_dp_attention", model=req.model.id, engine=engine.id)
    if split > req.model.layers:
        raise UserError(
            "flags.too_many_stages", gpus=req.gpus, model=req.model.id, layers=req.model.layers
        )
    context = (
        req.seq_len
        if req.training
        else (
            req.context
            or engine.default_context
            or min(DEFAULT_INFERENCE_CONTEXT, req.model.max_context)
        )
    )
    prompt = min(req.prompt_tokens or context, context)
    attention = req.attention or ("sdpa" if engine.id == "transformers" else "flash")
    kv = c.kv_dtype(req.kv_dtype or engine.default_kv_dtype)
    if req.strategy == "none" and strategy == "tp":
        dp = (req.model, engine, fmt, kv.bytes_per_element, context, req.batch, req.gpus)
        strategy = DP_ATTENTION if prefers_dp_attention(*dp) else strategy
    return Resolved(
        req=req,
        fmt=fmt,
        kv=kv,
        optimizer=c.optimizer(req.optimizer),
        precision=c.precision(req.precision),
        engine=engine,
        context=context,
        prompt_tokens=prompt,
        attention=attention,
        strategy=strategy,
        tp=tp,
        layer_split=split,
    )


def _check_format(req: MemoryRequest, fmt: WeightFormat) -> None:
    if fmt.quantizes == "experts" and not (req.model.moe and req.model.moe.experts):
        raise UserError("formats.needs_experts", quant=fmt.id, model=req.model.id)
    if req.mode == "qlora" and (req.model.origin == "gguf" or fmt.kind == "gguf"):
        raise UserError("estimate.qlora_gguf")
    if req.mode == "qlora" and not fmt.qlora_base:
        raise UserError("estimate.qlora_needs_quant", quant=fmt.id)
    if req.mode in ("full", "freeze") and not fmt.trainable:
        raise UserError("estimate.full_needs_float", quant=fmt.id, mode=req.mode)
    if req.mode == "lora" and fmt.kind not in ("float",):
        raise UserError("estimate.lora_quantized", quant=fmt.id)
