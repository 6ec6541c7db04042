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
from dataclasses import dataclass, replace
from typing import Any

from gpuwise.advise.engines import EngineChoice
from gpuwise.advise.margin import slow_tokens_per_s
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
    network_gbps_per_node: float | None = None
    """The network between machines this configuration was timed with (multi-machine jobs)."""
    network_assumed: bool = False
    replicas: int = 1
    """Copies of the model serving side by side (one per machine when a service spans several)."""
    compressed_for_target: str | None = None
    """The format that fitted first but missed the speed target, when a more compressed one
    was chosen to meet it (a quality caveat the report states)."""

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
            "compressed_for_target_from": self.compressed_for_target,
            "replicas": self.replicas if self.replicas > 1 else None,
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


TRAIN_STRATEGIES = ("ddp", "zero2", "fsdp")
"""Data-parallel layouts tried on more than one device, least sharded first: DDP keeps a full
replica (only gradients cross the link: for LoRA a few MB), ZeRO-2 shards optimizer states and
gradients, FSDP/ZeRO-3 also the weights (gathered every step: twice the weights cross the
link). The plan keeps the fastest one that fits, so a second card is never made slower by a
layout it did not need (DeepSpeed ZeRO paper, arXiv:1910.02054, §5 communication volumes)."""


def train_strategies(count: int) -> tuple[str, ...]:
    """The layouts to try on `count` devices."""
    return ("none",) if count == 1 else TRAIN_STRATEGIES


def _train_attempts(
    s: Scenario, model: LlmModel, quant: str, engine: str, count: int, strategy: str = "fsdp"
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
                strategy=strategy if count > 1 else "none",
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


def _fits(
    s: Scenario, gpu: Gpu, a: Attempt, mc: MemoryConstants
) -> tuple[MemoryEstimate, Any] | None:
    """The attempt's memory and resolved request when it fits the card with the margin."""
    try:
        est = estimate_memory(a.req, mc)
        margin = s.memory_margin
        if s.workload.kind == "train" and not a.req.grad_checkpointing:
            margin = max(margin, TIGHT_HEADROOM)
        if est.device_total_bytes > usable_bytes(gpu, mc, a.req) * (1 - margin):
            return None
        return est, resolve(a.req, mc)
    except UserError:
        return None  # e.g. a TP degree that does not divide the heads


def _first_fit(
    s: Scenario, gpu: Gpu, attempts: Iterator[Attempt], mc: MemoryConstants
) -> tuple[Attempt, MemoryEstimate, Any] | None:
    for a in attempts:
        found = _fits(s, gpu, a, mc)
        if found is not None:
            return a, *found
    return None


@dataclass(frozen=True)
class ScaleOut:
    """A job across machines: devices per machine and the network between them (Gb/s)."""

    nodes: int = 1
    node_devices: int = 0
    network_gbps_per_node: float | None = None
    network_assumed: bool = False
    """The network is the catalog's Ethernet assumption, not a published figure."""


@dataclass(frozen=True)
class SizeInputs:
    """What sizing needs beside the scenario and the card: the model and the constants."""

    model: LlmModel
    mc: MemoryConstants
    sc: SpeedConstants
    choice: EngineChoice
    defaults: Defaults
    scale: ScaleOut = ScaleOut()
    reading_floor: float | None = None
    """The speed each configuration must reach when the scenario sets no target (plan.py)."""


def _sized(
    s: Scenario, gpu: Gpu, count: int, found: tuple[Attempt, MemoryEstimate, Any], si: SizeInputs
) -> Sized:
    a, est, r = found
    verdict = si.choice.verdicts[a.quant]
    return _speed(s, gpu, count, a, r, est, si, verdict.support, verdict.compute)


def _size_train(s: Scenario, gpu: Gpu, count: int, si: SizeInputs) -> Sized | None:
    """The first format that fits in some layout, in the layout that finishes soonest."""
    for quant in si.choice.quants:
        best: Sized | None = None
        for strategy in train_strategies(count):
            attempts = _train_attempts(s, si.model, quant, si.choice.engine, count, strategy)
            found = _first_fit(s, gpu, attempts, si.mc)
            if found is None:
                continue
            sized = _sized(s, gpu, count, found, si)
            if best is None or sized.tokens_per_s > best.tokens_per_s * (1 + 1e-9):
                best = sized
            attempt = found[0]
            if attempt.micro_batch == s.workload.batch and not attempt.req.grad_checkpointing:
                break  # the whole batch fits without recomputation: more sharding only adds traffic
        if best is not None:
            return best
    return None


def _size_serve(s: Scenario, gpu: Gpu, count: int, si: SizeInputs) -> Sized | None:
    """The least-compressed format that fits and, where the scenario sets a speed target, the
    least-compressed one that meets it: fp8, int8 and 4-bit formats run faster where decode
    reads the weights, so a card that misses the target in 16 bits may meet it in fewer
    (the quality caveat goes with the option). The target is met at the slow end of the
    estimate's error band (advise/margin.py). None of them meeting it keeps the first fit."""
    target = s.workload.target_tokens_per_s or si.reading_floor
    first: Sized | None = None
    for quant in si.choice.quants:
        attempt = _serve_attempt(s, si.model, quant, si.choice.engine, count, si.defaults)
        found = _first_fit(s, gpu, iter((attempt,)), si.mc)
        if found is None:
            continue
        sized = _sized(s, gpu, count, found, si)
        if first is None:
            first = sized
        if not target or not sized.speed_known or slow_tokens_per_s(sized) >= target:
            if sized is first:
                return sized
            return replace(sized, compressed_for_target=first.quant)
    return first


def _size_replicas(s: Scenario, gpu: Gpu, count: int, si: SizeInputs) -> Sized | None:
    """A service across machines runs one replica per machine behind a load balancer, each
    taking its share of the concurrent requests; together they serve the sum of their rates."""
    nodes = si.scale.nodes
    target = s.workload.target_tokens_per_s
    share = {"concurrency": math.ceil(s.workload.concurrency / nodes)}
    if target:
        share["target_tokens_per_s"] = target / nodes  # type: ignore[assignment]
    one = s.model_copy(update={"workload": s.workload.model_copy(update=share)})
    floor = si.reading_floor / nodes if si.reading_floor else None
    sized = _size_serve(one, gpu, count // nodes, replace(si, reading_floor=floor))
    if sized is None:
        return None
    return replace(sized, count=count, tokens_per_s=sized.tokens_per_s * nodes, replicas=nodes)


def _with_network(sized: Sized | None, scale: ScaleOut) -> Sized | None:
    """Record the network a multi-machine training run was timed with."""
    if sized is None or scale.nodes == 1:
        return sized
    return replace(
        sized,
        network_gbps_per_node=scale.network_gbps_per_node,
        network_assumed=scale.network_assumed,
    )


def size(s: Scenario, gpu: Gpu, count: int, si: SizeInputs) -> Sized | None:
    """The configuration to run `count` × `gpu` with, and its speed; None when none fits."""
    if s.workload.kind == "train":
        return _with_network(_size_train(s, gpu, count, si), si.scale)
    if si.scale.nodes > 1:
        return _size_replicas(s, gpu, count, si)
    return _size_serve(s, gpu, count, si)


def _speed(
    s: Scenario,
    gpu: Gpu,
    count: int,
    a: Attempt,
    r: Any,
    est: MemoryEstimate,
    si: SizeInputs,
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
            inputs = SpeedInputs(
                gpu=gpu,
                train_tokens=w.train_tokens(),
                epochs=w.epochs,
                node_gpus=si.scale.node_devices or None,
                network_gbps_per_node=si.scale.network_gbps_per_node,
            )
            sp = training_speed(r, si.sc, inputs)
            tps = sp.train_tokens_per_s or 0.0
            hours = sp.train_time_h
        else:
            concurrency = w.concurrency if w.kind == "serve" else None
            sp = inference_speed(
                r, si.sc, SpeedInputs(gpu=gpu, gen_tokens=w.gen_tokens, concurrency=concurrency)
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
