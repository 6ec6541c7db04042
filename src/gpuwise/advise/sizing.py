"""Size the workload on one hardware option: the least-compressed configuration that fits.

For training the mode is the scenario's; more GPUs shard with FSDP. For serving, weights are
tried from 16-bit down to 4-bit and the first that fits wins (quality first; the price of the
hardware does not change with the quantization). Pure: estimator calls only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpuwise.advise.scenario import Scenario
from gpuwise.catalog.schema import Gpu, LlmModel
from gpuwise.errors import UserError
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.fit import usable_bytes
from gpuwise.estimate.memory import MemoryEstimate, estimate_memory
from gpuwise.estimate.request import MemoryRequest
from gpuwise.estimate.resolve import resolve
from gpuwise.estimate.speed import SpeedEstimate, SpeedInputs, inference_speed, training_speed
from gpuwise.estimate.speed_constants import SpeedConstants, backend_of

SERVE_QUANTS = ("bf16", "fp8", "int8-gptq", "int4-awq")
LOCAL_QUANTS = ("q8_0", "q5_k_m", "q4_k_m", "q3_k_m")


@dataclass(frozen=True)
class Sized:
    """A workload configuration that fits, with its memory and speed."""

    gpu: Gpu
    count: int
    quant: str
    engine: str
    strategy: str
    memory: MemoryEstimate
    speed: SpeedEstimate
    hours_per_run: float | None
    tokens_per_s: float
    speed_known: bool = True

    def as_dict(self) -> dict[str, Any]:
        """For --json."""
        return {
            "quant": self.quant,
            "engine": self.engine,
            "strategy": self.strategy,
            "memory_per_gpu_bytes": self.memory.device_total_bytes,
            "tokens_per_s": self.tokens_per_s,
        }


def _engine_for(s: Scenario, gpu: Gpu, features: dict[tuple[str, str], str]) -> str:
    """The scenario's engine, else vLLM where the stack runs it, llama.cpp/Ollama locally."""
    w = s.workload
    if w.engine:
        return w.engine
    if w.kind == "train":
        return "transformers"
    if w.kind == "local":
        return "ollama"
    stack = gpu.stack.names()[0] if gpu.stack.names() else "other"
    if features.get((stack, "vllm")) in ("yes", "partial"):
        return "vllm"
    return "llama.cpp" if stack == "metal" else "transformers"


def _quants(s: Scenario, engine: str) -> tuple[str, ...]:
    if s.workload.quant:
        return (s.workload.quant,)
    if s.workload.kind == "train":
        return ("nf4",) if s.workload.mode == "qlora" else ("bf16",)
    return LOCAL_QUANTS if engine in ("ollama", "llama.cpp") else SERVE_QUANTS


def _request(s: Scenario, model: LlmModel, quant: str, engine: str, count: int) -> MemoryRequest:
    w = s.workload
    if w.kind == "train":
        return MemoryRequest(
            model=model,
            mode=w.mode,
            quant=quant,
            batch=w.batch,
            seq_len=w.seq_len,
            gpus=count,
            strategy="fsdp" if count > 1 else "none",
            engine=engine,
        )
    prompt = w.prompt_tokens or max(1, w.context - w.gen_tokens)
    return MemoryRequest(
        model=model,
        quant=quant,
        batch=w.concurrency,
        context=w.context,
        prompt_tokens=prompt,
        gpus=count,
        engine=engine,
    )


def size(
    s: Scenario,
    model: LlmModel,
    gpu: Gpu,
    count: int,
    mc: MemoryConstants,
    sc: SpeedConstants,
    features: dict[tuple[str, str], str],
) -> Sized | None:
    """The first configuration that fits `count` × `gpu`, with its speed; None when none fits."""
    engine = _engine_for(s, gpu, features)
    for quant in _quants(s, engine):
        req = _request(s, model, quant, engine, count)
        try:
            est = estimate_memory(req, mc)
            if est.device_total_bytes > usable_bytes(gpu, mc, req) * (1 - s.memory_margin):
                continue
            r = resolve(req, mc)
        except UserError:
            continue  # e.g. a TP degree that does not divide the heads
        return _speed(s, gpu, count, quant, engine, r.strategy, req, est, mc, sc)
    return None


def _speed(
    s: Scenario,
    gpu: Gpu,
    count: int,
    quant: str,
    engine: str,
    strategy: str,
    req: MemoryRequest,
    est: MemoryEstimate,
    mc: MemoryConstants,
    sc: SpeedConstants,
) -> Sized:
    w = s.workload
    r = resolve(req, mc)
    try:
        if w.kind == "train":
            sp = training_speed(
                r, sc, SpeedInputs(gpu=gpu, train_tokens=w.train_tokens(), epochs=w.epochs)
            )
            tps = sp.train_tokens_per_s or 0.0
            hours = sp.train_time_h
        else:
            sp = inference_speed(
                r, sc, SpeedInputs(gpu=gpu, gen_tokens=w.gen_tokens, concurrency=w.concurrency)
            )
            tps = sp.serving_tokens_per_s or sp.decode_tokens_per_s or 0.0
            hours = None
    except UserError:  # the catalog lacks this card's bandwidth or TFLOPS: fits, speed unknown
        return Sized(
            gpu,
            count,
            quant,
            engine,
            strategy,
            est,
            SpeedEstimate(bound="unknown"),
            None,
            0.0,
            speed_known=False,
        )
    return Sized(gpu, count, quant, engine, strategy, est, sp, hours, tps)


def backend(gpu: Gpu) -> str:
    """The GPU's software backend name (for risks)."""
    return backend_of(gpu)
