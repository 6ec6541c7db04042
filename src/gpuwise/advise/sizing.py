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
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from gpuwise.advise.attempts import (
    Attempt,
    request_key,
    serve_attempt,
    train_attempts,
    train_strategies,
)
from gpuwise.advise.engines import stack_of
from gpuwise.advise.formats import serve_formats
from gpuwise.advise.margin import slow_tokens_per_s
from gpuwise.advise.scenario import Scenario
from gpuwise.advise.sized import ScaleOut, Sized, SizeInputs, weight_bits
from gpuwise.advise.sizing_pick import pick_layout
from gpuwise.advise.sizing_speed import speed_of
from gpuwise.catalog.schema import Gpu
from gpuwise.errors import UserError
from gpuwise.estimate.fit import usable_bytes
from gpuwise.estimate.memory import MemoryEstimate, estimate_memory
from gpuwise.estimate.resolve import resolve
from gpuwise.estimate.speed_constants import backend_of

TIGHT_HEADROOM = 0.10
"""Less spare memory than this is a risk (a longer sequence or bigger batch runs out). Skipping
activation checkpointing is only chosen where it leaves at least this much: speed is not worth
an out-of-memory error halfway through a run."""


Keyed = tuple[Attempt, tuple[object, ...]]
"""An attempt with its request's memo key (attempts.request_key)."""


def _estimate(
    a: Attempt, key: tuple[object, ...], si: SizeInputs
) -> tuple[MemoryEstimate, Any] | None:
    """The attempt's memory and resolved request, or None when the request contradicts itself.
    Memoized: it depends on the request, not the card, and the search tries the same requests
    on every card; the memo lives in one search's SizeInputs (never outlives its catalog)."""
    if key not in si.memo:
        try:
            si.memo[key] = (estimate_memory(a.req, si.mc), resolve(a.req, si.mc))
        except UserError:
            si.memo[key] = None  # e.g. a TP degree that does not divide the heads
    found: tuple[MemoryEstimate, Any] | None = si.memo[key]
    return found


def _fits(s: Scenario, gpu: Gpu, a: Keyed, si: SizeInputs) -> tuple[MemoryEstimate, Any] | None:
    """The attempt's memory and resolved request when it fits the card with the margin."""
    found = _estimate(*a, si)
    if found is None:
        return None
    margin = s.memory_margin
    req = a[0].req
    if s.workload.kind == "train" and not req.grad_checkpointing:
        margin = max(margin, TIGHT_HEADROOM)
    need = found[0].device_total_bytes + si.companion_bytes  # models served beside it
    fits = need <= usable_bytes(gpu, si.mc, req) * (1 - margin)
    return found if fits else None


def _first_fit(
    s: Scenario, gpu: Gpu, attempts: Iterable[Keyed], si: SizeInputs
) -> tuple[Attempt, MemoryEstimate, Any] | None:
    for a in attempts:
        found = _fits(s, gpu, a, si)
        if found is not None:
            return a[0], *found
    return None


def _keyed_train_attempts(
    s: Scenario, quant: str, count: int, strategy: str, si: SizeInputs
) -> tuple[Keyed, ...]:
    """A layout's training attempts with their keys, made once per search (the same for every
    card with `count` devices). The scenario is the search's own, alive while the memo is."""
    node = si.scale.node_devices
    memo_key = ("train-attempts", id(s), quant, si.choice.engine, count, strategy, node)
    if memo_key not in si.memo:
        made = train_attempts(s, si.model, quant, si.choice.engine, count, strategy, node)
        si.memo[memo_key] = tuple((a, request_key(a.req)) for a in made)
    return si.memo[memo_key]  # type: ignore[no-any-return]


def _sized(
    s: Scenario, gpu: Gpu, count: int, found: tuple[Attempt, MemoryEstimate, Any], si: SizeInputs
) -> Sized:
    a, est, r = found
    verdict = si.choice.verdicts[a.quant]
    return speed_of(s, gpu, count, a, r, est, si, verdict.support, verdict.compute)


def _size_train(s: Scenario, gpu: Gpu, count: int, si: SizeInputs) -> Sized | None:
    """The first format that fits in some layout, in the layout that finishes soonest; where
    none fits on cards the user owns for a full fine-tune, the same with the optimizer (and
    then the weights) offloaded to the host's memory (DeepSpeed ZeRO-Offload, arXiv:2101.06840:
    slower, bound by PCIe, but it runs; blind w45-02: 8 owned RTX 3090s were called unable to
    fine-tune an 8B model in full, where ZeRO-3 with offload fits in 19 GiB a card)."""
    found = _size_train_in(s, gpu, count, si, train_strategies(count, si.scale.node_devices))
    w = s.workload
    owned = si.host_offload and si.choice.engine in OFFLOAD_ENGINES
    if found is None and w.execution is None and stack_of(gpu) == "cuda":
        found = _size_train_fused(s, gpu, count, si)
    if found is None and owned and w.mode == "full":  # ZeRO-Offload: the optimizer's states
        found = _size_train_in(s, gpu, count, si, OFFLOAD_STRATEGIES)
    return found


def _size_train_fused(s: Scenario, gpu: Gpu, count: int, si: SizeInputs) -> Sized | None:
    """The run with fused kernels (Unsloth, Liger: a chunked cross-entropy that never holds the
    full logits), tried where the eager step does not fit the cards, owned, bought or rented
    (blind w46-04: an owned RTX 4080 was to be sold where Unsloth QLoRA of a 14B fits it;
    w54-02: a 24B full fine-tune on one 8 x H100 node vanished 0.5 GiB short, 10 GiB of it the
    unfused FP32 logits). The option carries risk `fused_only`."""
    fused = s.model_copy(update={"workload": s.workload.model_copy(update={"execution": "fused"})})
    found = _size_train_in(fused, gpu, count, si, train_strategies(count, si.scale.node_devices))
    return replace(found, fused_only=True) if found is not None else None


OFFLOAD_STRATEGIES = ("zero2-offload", "zero3-offload")
"""DeepSpeed's host-memory offloads, least offloaded first: the optimizer states (and FP32
master weights) on the CPU, then the 16-bit weights too."""
OFFLOAD_ENGINES = frozenset({"transformers"})
"""Training engines that run DeepSpeed's offload (Hugging Face Trainer / accelerate)."""


def _faster_or_roomier(sized: Sized, best: Sized) -> bool:
    """A layout beats the best so far when it is faster, or as fast with more memory to spare
    (blind w60-02: ZeRO-2 at 75.7 of 80 GiB kept over FSDP at 57.8 at the same speed, a tight
    memory risk bought for nothing)."""
    if sized.tokens_per_s > best.tokens_per_s * (1 + 1e-9):
        return True
    same = sized.tokens_per_s >= best.tokens_per_s * (1 - 1e-9)
    return same and sized.memory.device_total_bytes < best.memory.device_total_bytes


def _size_train_in(
    s: Scenario, gpu: Gpu, count: int, si: SizeInputs, strategies: tuple[str, ...]
) -> Sized | None:
    """The first format that fits in one of `strategies`, in the one that finishes soonest."""
    for quant in si.choice.quants:
        best: Sized | None = None
        for strategy in strategies:
            attempts = _keyed_train_attempts(s, quant, count, strategy, si)
            found = _first_fit(s, gpu, attempts, si)
            if found is None:
                continue
            sized = _sized(s, gpu, count, found, si)
            if best is None or _faster_or_roomier(sized, best):
                best = sized
            attempt = found[0]
            whole = s.workload.device_batch(count)
            if attempt.micro_batch == whole and not attempt.req.grad_checkpointing:
                break  # the whole batch fits without recomputation: more sharding only adds traffic
        if best is not None:
            return best
    return None


def _size_serve(s: Scenario, gpu: Gpu, count: int, si: SizeInputs) -> Sized | None:
    """The least-compressed format that fits and, where the scenario sets a speed target, the
    least-compressed one that meets it: fp8, int8 and 4-bit formats run faster where decode
    reads the weights, so a card that misses the target in 16 bits may meet it in fewer
    (the quality caveat goes with the option). The target is met at the slow end of the
    estimate's error band (advise/margin.py); where no format does, the least compressed of
    those that meet it at the central estimate, a fully supported one first (its shortfall
    is priced: margin.ranking_total; _shortfall_key says why not the smallest); else the first
    fit."""
    if s.workload.batch_requests() and si.batch_floor_bits:
        return _size_batch(s, gpu, count, si, si.batch_floor_bits)
    target = max(s.workload.target_tokens_per_s or 0.0, si.reading_floor or 0.0) or None
    first: Sized | None = None
    central: Sized | None = None
    for quant, kv in serve_formats(si, gpu):
        attempt = serve_attempt(s, si.model, quant, si.choice.engine, count, si.defaults, kv)
        sized = _best_budget(s, gpu, count, attempt, si, target)
        if sized is None:
            continue
        if first is None:
            first = sized
        if not target or not sized.speed_known or slow_tokens_per_s(sized) >= target:
            return _compressed_from(sized, first)
        if sized.tokens_per_s >= target and (
            central is None or _shortfall_key(sized) < _shortfall_key(central)
        ):
            central = sized
    if central is None or first is None:
        return first
    return _compressed_from(central, first)


def _size_batch(s: Scenario, gpu: Gpu, count: int, si: SizeInputs, floor: float) -> Sized | None:
    """A one-off batch: its cost is its hours, so among the formats of at least `floor` bits
    per weight that fit (8-bit: FP8 W8A8 is near-lossless, plan assumption
    batch_quality_floor_bits) the fastest at the slow end runs it, fully supported first;
    the least compressed format that fits is named as the quality alternative. Below the
    floor only where nothing above it fits (quality before a cheaper batch of worse text)."""
    found: list[Sized] = []
    for quant, kv in serve_formats(si, gpu):
        sized = _batch_in_memory(s, gpu, count, si, quant, kv)
        if sized is not None:
            found.append(sized)
    if not found:
        return None
    first = found[0]
    eligible = [x for x in found if weight_bits(si.mc, x.quant) >= floor and x.speed_known]
    if not eligible:
        return first
    best = min(eligible, key=lambda x: (x.support != "yes", -slow_tokens_per_s(x)))
    if slow_tokens_per_s(best) <= slow_tokens_per_s(first) * QUALITY_SPEED_SHARE:
        return first  # not worth a quality caveat
    return _compressed_from(best, first)


QUALITY_SPEED_SHARE = 1.05
"""How much faster a more compressed format must run a one-off batch to be taken over a less
compressed one: within 5% (the prices' own uncertainty), quality wins."""


SMALLEST_RUNNING_BATCH = 8
"""Fewest requests in flight an assumed running batch is cut to on a card whose memory holds
no more (below it the card is left to a format or a card that holds more)."""


def _batch_in_memory(
    s: Scenario, gpu: Gpu, count: int, si: SizeInputs, quant: str, kv: str | None
) -> Sized | None:
    """One format of a batch, at the running batch it was given; where that batch was assumed
    (the engine's default) and its KV cache does not fit, at half of it, and half again, down
    to SMALLEST_RUNNING_BATCH: the engine runs what its memory holds (blind w56-04: 256 in
    flight forced a 7B VLM onto two 40 GB A100s where one runs ~90 at a time)."""
    running = s.workload.concurrency
    while True:
        attempt = serve_attempt(s, si.model, quant, si.choice.engine, count, si.defaults, kv)
        sized = _best_budget(s, gpu, count, attempt, si, None)
        if sized is not None or not s.running_batch_assumed():
            return sized
        running //= 2
        if running < SMALLEST_RUNNING_BATCH:
            return None
        w = s.workload.model_copy(update={"concurrency": running})
        s = s.model_copy(update={"workload": w})


BUDGET_REACH = 1.5
"""How far below the target (central estimate) a layout is still tried with other step
budgets: the largest gain seen was +28% (DeepSeek-V3 on 8 × B200 with DP attention, 4,755 →
6,084 tok/s going from 8,192 to 2,048 tokens, prompt chunks carrying the decode batch); a
layout further off is not rescued by a budget, and each budget is a full estimate."""


def _best_budget(
    s: Scenario, gpu: Gpu, count: int, attempt: Attempt, si: SizeInputs, target: float | None
) -> Sized | None:
    """The attempt at the engine's default step token budget and, where it misses the speed
    target at the slow end but is within BUDGET_REACH of it, at each budget worth trying
    (catalog step_budget: vLLM's max_num_batched_tokens, SGLang's chunked_prefill_size): a
    bigger step runs a prompt in fewer chunks (fewer passes over the weights, fewer fixed
    costs per layer), a smaller one lets more decode steps ride with prompt chunks
    (estimate.speed._serving). A budget is kept only where it is faster at the slow end than
    the default by more than 1% (a flag to set must buy something) and still fits."""
    found = _first_fit(s, gpu, ((attempt, request_key(attempt.req)),), si)
    best = _sized(s, gpu, count, found, si) if found else None
    if not target or not si.step_budgets or best is None or not best.speed_known:
        return best
    if slow_tokens_per_s(best) >= target or best.tokens_per_s * BUDGET_REACH < target:
        return best  # safe with the default, or too far off for a budget to matter
    sched = si.sc.scheduler(si.choice.engine, gpu)
    default = sched.max_batched_tokens if sched else None
    for budget in si.step_budgets:
        if budget == default:
            continue  # the estimate at the default is `best` already
        tried = replace(attempt, req=attempt.req.with_(ubatch=budget))
        fit = _first_fit(s, gpu, ((tried, request_key(tried.req)),), si)
        if fit is None:
            continue
        sized = replace(_sized(s, gpu, count, fit, si), step_tokens=budget)
        if slow_tokens_per_s(sized) > slow_tokens_per_s(best) * 1.01:
            best = sized
    return best


def _shortfall_key(sized: Sized) -> tuple[bool, float]:
    """How a format that meets the target only at its central estimate is chosen: fully
    supported first (a partly supported format costs porting work: advise/porting.py), then
    the least compressed (the formats come least compressed first, and this key keeps the
    first): a format more compressed than one that already meets the target at its central
    estimate buys a smaller priced shortfall with the model's quality, which an expert does
    not trade (blind w16-03: DeepSeek-V3 for a public API cut to 4 bits on 8 x H200 where FP8
    met the target). Only a format that meets it at the slow end (the safe branch) is worth
    more compression."""
    return sized.support != "yes", 0.0


def _compressed_from(sized: Sized, first: Sized) -> Sized:
    """The sizing, noting the format that fitted first when a more compressed one was taken."""
    if sized is first or sized.quant == first.quant:  # the same format, another layout or cache
        return sized  # (blind w32-02: "int4-awq fits too, but int4-awq meets the speed")
    return replace(sized, compressed_for_target=first.quant)


def _share(s: Scenario, replicas: int) -> Scenario:
    """One replica's share of the service: its part of the concurrent requests and target. A
    one-off batch is a queue every copy draws from: each keeps its engine's running batch
    full, so its requests in flight are per copy (blind w17-04: vLLM's 256 is per engine; split
    over two copies of 4 B200s, each ran 128 and the fleet half as fast as it would)."""
    w = s.workload
    per_copy = w.concurrency if w.batch_requests() else math.ceil(w.concurrency / replicas)
    share: dict[str, Any] = {"concurrency": per_copy}
    if s.workload.target_tokens_per_s:
        share["target_tokens_per_s"] = s.workload.target_tokens_per_s / replicas
    return s.model_copy(update={"workload": s.workload.model_copy(update=share)})


def _times(sized: Sized | None, count: int, replicas: int, span: int = 1) -> Sized | None:
    """`replicas` copies of a sizing behind a load balancer: together they serve the sum of
    their rates."""
    if sized is None:
        return None
    return replace(
        sized,
        count=count,
        tokens_per_s=sized.tokens_per_s * replicas,
        replicas=sized.replicas * replicas,
        machines_per_replica=span,
    )


def _size_replicas(
    s: Scenario, gpu: Gpu, count: int, si: SizeInputs, replicas: int
) -> Sized | None:
    """A service run as `replicas` copies of the model on one machine's cards, each taking
    its share of the concurrent requests and of the companions' stated load (as copies over
    machines do: blind w61-05, each of 8 copies was given the whole reranker's 5.4M tokens/s,
    so only one copy split over 8 cards was found to carry it)."""
    floor = si.reading_floor / replicas if si.reading_floor else None
    loads = tuple((m, load / replicas) for m, load in si.companion_loads)
    one = replace(si, reading_floor=floor, companion_loads=loads)
    sized = _size_serve(_share(s, replicas), gpu, count // replicas, one)
    return _times(sized, count, replicas)


def _size_on_one_machine(s: Scenario, gpu: Gpu, count: int, si: SizeInputs) -> Sized | None:
    """A service on several cards of one machine: the model split across all of them (tensor
    parallel), or split into independent copies (data parallel: vLLM's --data-parallel-size,
    or one llama.cpp server per card). Copies win where the model fits fewer cards and the
    link between cards is slow (PCIe, no NVLink): each copy serves its share of the requests
    without any traffic between cards. A one-off batch (independent inputs, priced by its
    hours) takes the layout fastest at the slow end of its band: N copies of a model that fits
    one card finish N times sooner (blind w15-03: 8 cards were judged no faster than one).
    Without a target or a batch the split model is kept."""
    split = _size_serve(s, gpu, count, si)
    target = max(s.workload.target_tokens_per_s or 0.0, si.reading_floor or 0.0) or None
    batch = s.workload.batch_requests() > 0
    if count == 1 or s.workload.concurrency < 2 or not (target or batch):
        return split
    layouts = [split] + [
        _size_replicas(s, gpu, count, si, r)
        for r in range(2, min(count, s.workload.concurrency) + 1)
        if count % r == 0
    ]
    if not target:
        return _fastest(layouts, si) or split
    return pick_layout(layouts, target, si, copies_first=s.public_api) or split


def _fastest(layouts: list[Sized | None], si: SizeInputs) -> Sized | None:
    """The layout fastest at the slow end of its band, a fully supported one first, and for a
    one-off batch one at the quality floor first (blind w18-05: two 4-bit copies of a 671B
    teacher beat one FP8 copy on speed and were taken, though FP8 fitted)."""
    known = [x for x in layouts if x is not None and x.speed_known]

    def key(x: Sized) -> tuple[bool, bool, float]:
        below = bool(si.batch_floor_bits) and weight_bits(si.mc, x.quant) < (
            si.batch_floor_bits or 0.0
        )
        return (below, x.support != "yes", -slow_tokens_per_s(x))

    best = min(known, key=key, default=None)
    if best is None:
        return None

    # a less compressed layout within 5% of the fastest runs it: a few per cent of speed is
    # not worth a quality caveat (as _size_batch within one layout; blind w61-02: two FP8
    # copies taken over one BF16 copy 1.7% slower)
    def bits(x: Sized) -> float:
        return weight_bits(si.mc, x.quant)

    near = [
        x
        for x in known
        if key(x)[:2] == key(best)[:2]
        and bits(x) > bits(best)
        and slow_tokens_per_s(x) * QUALITY_SPEED_SHARE >= slow_tokens_per_s(best)
    ]
    return max(near, key=lambda x: (bits(x), slow_tokens_per_s(x))) if near else best


def _size_machines(s: Scenario, gpu: Gpu, count: int, si: SizeInputs) -> Sized | None:
    """A service over N machines: N replicas of one machine each (each machine laid out as
    _size_on_one_machine lays it out), or, where the machines are big enough to be cluster
    nodes, fewer replicas that each span 2, 4 … machines (a model one machine cannot hold,
    or one faster split wider), their network time added (estimate.speed_scaleout)."""
    nodes = si.scale.nodes
    layouts: list[Sized | None] = []
    span = 1
    while span <= nodes:
        replicas = nodes // span
        one = _share(s, replicas)
        floor = si.reading_floor / replicas if si.reading_floor else None
        # each replica carries its share of the companions' load too (blind w47-04: a
        # reranker's whole load on each one-GPU replica blocked every small card)
        loads = tuple((m, load / replicas) for m, load in si.companion_loads)
        sub = replace(si, reading_floor=floor, span=span, companion_loads=loads)
        if span == 1:
            sized = _size_on_one_machine(one, gpu, count // replicas, sub)
        else:
            sized = _size_serve(one, gpu, count // replicas, sub)
        sized = _times(sized, count, replicas, span)
        layouts.append(_with_network(sized, si.scale) if span > 1 else sized)
        if not si.scale.may_span or _enough(sized, s, si):
            break  # a wider replica only pays more network for what this one already does
        span *= 2
        while span <= nodes and nodes % span:
            span += 1
    target = max(s.workload.target_tokens_per_s or 0.0, si.reading_floor or 0.0) or None
    fitting = [x for x in layouts if x is not None]
    if not target or not fitting:
        return fitting[0] if fitting else None
    return pick_layout(layouts, target, si, copies_first=s.public_api) or fitting[0]


def _enough(sized: Sized | None, s: Scenario, si: SizeInputs) -> bool:
    """Whether a layout already meets the target at the slow end in the least compressed
    format the engine runs: nothing bigger can do better on quality or safety."""
    target = max(s.workload.target_tokens_per_s or 0.0, si.reading_floor or 0.0)
    if sized is None or not sized.speed_known or not si.choice.quants:
        return False
    return sized.quant == si.choice.quants[0] and slow_tokens_per_s(sized) >= target


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
        return _size_machines(s, gpu, count, si)
    return _size_on_one_machine(s, gpu, count, si)


def backend(gpu: Gpu) -> str:
    """The GPU's software backend name (for risks)."""
    return backend_of(gpu)
