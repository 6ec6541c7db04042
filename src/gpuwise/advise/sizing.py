"""Size the workload on one hardware option: the least-compressed configuration that fits.

Serving and local chat try weight formats from 16-bit down to 4-bit and keep the first that
fits (quality first; the hardware's price does not change with the quantization), but only
formats the chosen engine runs on that card (catalog/data/compat/precision.toml). Training keeps
the scenario's mode and looks for the micro-batch (with gradient accumulation up to the
scenario's batch) and, only where memory needs it, activation checkpointing that fit.

Memory is sized from what requests actually hold, not from the maxima: a served request keeps
its prompt + generated tokens in the KV cache (the context is the cap a single request may
reach), and a local chat turn prefills only the new message, the earlier turns being cached.
Pure: estimator calls only.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from gpuwise.advise.engines import EngineChoice
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

TIGHT_HEADROOM = 0.10
"""Less spare memory than this is a risk (a longer sequence or bigger batch runs out). Skipping
activation checkpointing is only chosen where it leaves at least this much: speed is not worth
an out-of-memory error halfway through a run."""


@dataclass(frozen=True)
class Defaults:
    """Request sizes the scenario left out, from the catalog's planner assumptions."""

    serve_prompt_tokens: int
    chat_turn_prompt_tokens: int


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
    micro_batch: int | None = None
    grad_accumulation: int | None = None
    grad_checkpointing: bool | None = None
    prompt_tokens: int | None = None
    kv_tokens_per_request: int | None = None
    support: str = "yes"
    compute: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """For --json."""
        out: dict[str, Any] = {
            "quant": self.quant,
            "engine": self.engine,
            "strategy": self.strategy,
            "memory_per_gpu_bytes": self.memory.device_total_bytes,
            "tokens_per_s": self.tokens_per_s,
            "format_support": self.support,
            "compute_precision": self.compute,
        }
        extra = {
            "micro_batch": self.micro_batch,
            "grad_accumulation": self.grad_accumulation,
            "grad_checkpointing": self.grad_checkpointing,
            "prompt_tokens": self.prompt_tokens,
            "kv_tokens_per_request": self.kv_tokens_per_request,
        }
        out.update({k: v for k, v in extra.items() if v is not None})
        return out


@dataclass(frozen=True)
class Attempt:
    """One configuration to try: the request and what the plan reports about it."""

    req: MemoryRequest
    quant: str
    micro_batch: int | None = None
    grad_accumulation: int | None = None
    prompt_tokens: int | None = None
    kv_tokens: int | None = None


def _halvings(n: int) -> Iterator[int]:
    """n, n/2, … 1 (micro-batches to try, largest first)."""
    while n >= 1:
        yield n
        n //= 2


def _train_attempts(
    s: Scenario, model: LlmModel, quant: str, engine: str, count: int
) -> Iterator[Attempt]:
    """Without activation checkpointing first (a quarter less compute), then with it; each
    from the scenario's batch down to a micro-batch of 1 with gradient accumulation."""
    w = s.workload
    checkpointing = (w.grad_checkpointing,) if w.grad_checkpointing is not None else (False, True)
    for gc in checkpointing:
        for micro in _halvings(w.batch):
            req = MemoryRequest(
                model=model,
                mode=w.mode,
                quant=quant,
                batch=micro,
                seq_len=w.seq_len,
                gpus=count,
                strategy="fsdp" if count > 1 else "none",
                engine=engine,
                grad_checkpointing=gc,
                precision="mixed-fp16" if quant == "fp16" else "mixed-bf16",
            )
            yield Attempt(req, quant, micro, math.ceil(w.batch / micro))


def _serve_attempt(
    s: Scenario, model: LlmModel, quant: str, engine: str, count: int, d: Defaults
) -> Attempt:
    """KV for `concurrency` requests of prompt + output tokens, and at least one request as
    long as the context (an engine such as vLLM refuses a context it cannot hold once)."""
    w = s.workload
    gen = min(w.gen_tokens, w.context - 1)
    if w.kind == "local":
        prompt = max(1, min(w.prompt_tokens or d.chat_turn_prompt_tokens, w.context - gen))
        per_request = w.context  # llama.cpp / Ollama allocate the whole context up front
        batch = 1
    else:
        prompt = max(1, min(w.prompt_tokens or d.serve_prompt_tokens, w.context - gen))
        batch = w.concurrency
        per_request = max(prompt + gen, math.ceil(w.context / batch))
    req = MemoryRequest(
        model=model,
        quant=quant,
        batch=batch,
        context=per_request,
        prompt_tokens=prompt,
        gpus=count,
        engine=engine,
    )
    return Attempt(req, quant, prompt_tokens=prompt, kv_tokens=per_request)


def _attempts(
    s: Scenario, model: LlmModel, choice: EngineChoice, count: int, d: Defaults
) -> Iterator[Attempt]:
    for quant in choice.quants:
        if s.workload.kind == "train":
            yield from _train_attempts(s, model, quant, choice.engine, count)
        else:
            yield _serve_attempt(s, model, quant, choice.engine, count, d)


def size(
    s: Scenario,
    model: LlmModel,
    gpu: Gpu,
    count: int,
    mc: MemoryConstants,
    sc: SpeedConstants,
    choice: EngineChoice,
    d: Defaults,
) -> Sized | None:
    """The first configuration that fits `count` × `gpu`, with its speed; None when none fits."""
    for a in _attempts(s, model, choice, count, d):
        try:
            est = estimate_memory(a.req, mc)
            margin = s.memory_margin
            if s.workload.kind == "train" and not a.req.grad_checkpointing:
                margin = max(margin, TIGHT_HEADROOM)
            if est.device_total_bytes > usable_bytes(gpu, mc, a.req) * (1 - margin):
                continue
            r = resolve(a.req, mc)
        except UserError:
            continue  # e.g. a TP degree that does not divide the heads
        verdict = choice.verdicts[a.quant]
        return _speed(s, gpu, count, a, r, est, sc, verdict.support, verdict.compute)
    return None


def _speed(
    s: Scenario,
    gpu: Gpu,
    count: int,
    a: Attempt,
    r: Any,
    est: MemoryEstimate,
    sc: SpeedConstants,
    support: str,
    compute: str | None,
) -> Sized:
    """Tokens/s (and hours of a training run) of the configuration that fits."""
    w = s.workload
    common: dict[str, Any] = {
        "micro_batch": a.micro_batch,
        "grad_accumulation": a.grad_accumulation,
        "grad_checkpointing": a.req.grad_checkpointing if w.kind == "train" else None,
        "prompt_tokens": a.prompt_tokens,
        "kv_tokens_per_request": a.kv_tokens,
        "support": support,
        "compute": compute,
    }
    engine = a.req.engine or ""
    try:
        if w.kind == "train":
            sp = training_speed(
                r, sc, SpeedInputs(gpu=gpu, train_tokens=w.train_tokens(), epochs=w.epochs)
            )
            tps = sp.train_tokens_per_s or 0.0
            hours = sp.train_time_h
        else:
            concurrency = w.concurrency if w.kind == "serve" else None
            sp = inference_speed(
                r, sc, SpeedInputs(gpu=gpu, gen_tokens=w.gen_tokens, concurrency=concurrency)
            )
            tps = sp.serving_tokens_per_s or sp.decode_tokens_per_s or 0.0
            hours = None
    except UserError:  # the catalog lacks this card's bandwidth or TFLOPS: fits, speed unknown
        unknown = SpeedEstimate(bound="unknown")
        return Sized(
            gpu, count, a.quant, engine, r.strategy, est, unknown, None, 0.0, False, **common
        )
    return Sized(gpu, count, a.quant, engine, r.strategy, est, sp, hours, tps, **common)


def backend(gpu: Gpu) -> str:
    """The GPU's software backend name (for risks)."""
    return backend_of(gpu)
