"""The configurations sizing tries: a training run's micro-batches and layouts, a service's
requests (advise/sizing.py tries them, least compressed and fastest first).

Pure: requests are built, never estimated, here.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, fields

from gpuwise.advise.scenario import Scenario
from gpuwise.catalog.schema import LlmModel
from gpuwise.estimate.pooling import pools
from gpuwise.estimate.request import DEFAULT_LORA_RANK, MemoryRequest


@dataclass(frozen=True)
class Defaults:
    """Request sizes the scenario left out, from the catalog's planner assumptions."""

    serve_prompt_tokens: int
    chat_turn_prompt_tokens: int


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
    """n, then the powers of two below it, … 1 (micro-batches to try, largest first): a share
    of 26 sequences tries 26, 16, 8, 4, 2, 1, so a device count that does not divide the batch
    by two still gets micro-batches of 2 (blind w45-05: 5 servers ran micro-batches of 1 and
    were dropped as slower than 4)."""
    yield n
    p = 1 << (n.bit_length() - 1)
    if p == n:
        p //= 2
    while p >= 1:
        yield p
        p //= 2


TRAIN_STRATEGIES = ("ddp", "zero1", "zero2", "fsdp")
"""Data-parallel layouts tried on more than one device, least sharded first: DDP keeps a full
replica (only gradients cross the link: for LoRA a few MB), ZeRO-1 shards the optimizer states
(gradients still cross once per optimizer step, however many micro-steps accumulate), ZeRO-2
also the gradients (reduce-scattered every micro-step), FSDP/ZeRO-3 also the weights (gathered
every micro-step: half as much traffic again). The plan keeps the fastest one that fits, so
a second card is never made slower by a layout it did not need (DeepSpeed ZeRO paper,
arXiv:1910.02054, §5 communication volumes)."""


def train_strategies(count: int, node_devices: int = 0) -> tuple[str, ...]:
    """The layouts to try on `count` devices; over several machines of `node_devices` each,
    hybrid sharding too (FSDP inside each machine, a copy per machine: only the trainable
    gradients cross the slower network between machines, PyTorch FSDP HYBRID_SHARD; blind
    w26-05: LoRA of a 32B over two 8-NPU machines was judged no faster than one, its frozen
    weights gathered across the machines every micro-step)."""
    if count == 1:
        return ("none",)
    if node_devices and count > node_devices and count % node_devices == 0:
        return (*TRAIN_STRATEGIES, "hsdp")
    return TRAIN_STRATEGIES


def train_attempts(
    s: Scenario,
    model: LlmModel,
    quant: str,
    engine: str,
    count: int,
    strategy: str = "fsdp",
    node_devices: int = 0,
) -> Iterator[Attempt]:
    """Without activation checkpointing first (a quarter less compute), then with it; each
    from the device's share of the global batch down to a micro-batch of 1 with gradient
    accumulation (the scenario's batch is sequences per optimizer step over all devices)."""
    w = s.workload
    share = w.device_batch(count)
    checkpointing = (w.grad_checkpointing,) if w.grad_checkpointing is not None else (False, True)
    for gc in checkpointing:
        for micro in _halvings(share):
            req = MemoryRequest(
                model=model,
                mode=w.mode,
                quant=quant,
                batch=micro,
                seq_len=w.seq_len,
                gpus=count,
                strategy=strategy if count > 1 or strategy.endswith("offload") else "none",
                shard_gpus=node_devices if strategy == "hsdp" else None,
                engine=engine,
                grad_checkpointing=gc,
                precision="mixed-fp16" if quant == "fp16" else "mixed-bf16",
                fused_loss=w.execution in ("fused", "framework"),
                lora_rank=w.lora_rank or DEFAULT_LORA_RANK,
                lora_targets=w.adapter_targets(),
            )
            yield Attempt(req, quant, micro, math.ceil(share / micro))


def serve_attempt(
    s: Scenario,
    model: LlmModel,
    quant: str,
    engine: str,
    count: int,
    d: Defaults,
    kv_dtype: str | None = None,
) -> Attempt:
    """KV for `concurrency` requests of prompt + half their output tokens (the steady state of
    requests at every stage of their answers; blind w12-01: 32 reasoning answers of 16k tokens
    were all reserved at full length), and at least one request as long as the context (an
    engine such as vLLM refuses a context it cannot hold once). An embedder or reranker
    generates nothing: its requests are their inputs (estimate.pooling)."""
    w = s.workload
    gen = 0 if pools(model) else min(w.gen_tokens, w.context - 1)
    if w.kind == "local":
        prompt = max(1, min(w.prompt_tokens or d.chat_turn_prompt_tokens, w.context - gen))
        per_request = w.context  # llama.cpp / Ollama allocate the whole context up front
        batch = w.concurrency  # one slot of it per user sharing the machine (OLLAMA_NUM_PARALLEL)
    else:
        prompt = max(1, min(w.prompt_tokens or d.serve_prompt_tokens, w.context - gen))
        batch = w.concurrency
        # several requests in flight are at every stage of their answers: on average each holds
        # its prompt and half its output (the engine pages KV in as tokens come; vLLM preempts
        # and recomputes a request rather than fail when the pool runs short). One request alone
        # reaches its full length.
        held = prompt + (gen if batch == 1 else math.ceil(gen / 2))
        per_request = max(held, math.ceil(w.context / batch))
    req = MemoryRequest(
        model=model,
        quant=quant,
        batch=batch,
        context=per_request,
        prompt_tokens=prompt,
        image_tokens=min(w.image_tokens or 0, prompt),
        gpus=count,
        engine=engine,
        kv_dtype=kv_dtype,
    )
    return Attempt(req, quant, prompt_tokens=prompt, kv_tokens=per_request)


_REQUEST_FIELDS = tuple(f.name for f in fields(MemoryRequest) if f.name not in ("model", "extra"))


def request_key(req: MemoryRequest) -> tuple[object, ...]:
    """Every input of a request, hashable; the model by identity (one per search, kept alive by
    the SizeInputs that holds the memo)."""
    values = vars(req)
    plain = [values[name] for name in _REQUEST_FIELDS]
    return (id(req.model), tuple(sorted(req.extra.items())), *plain)
