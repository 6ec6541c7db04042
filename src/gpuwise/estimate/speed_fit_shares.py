"""The one-unknown fits: each prefill (or prefill-dominated serving) case's share of the tensor
rate and each training case's share of the achievable matmul rate, found exactly by bisection
or in closed form, then pooled in log space level by level (estimate/speed_fit.py runs them).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from gpuwise.catalog.schema_speed import (
    PrefillEfficiency,
    TrainEfficiency,
)
from gpuwise.estimate.speed import (
    SpeedEstimate,
    collective_bps,
    decode_terms,
    prefill_group_rate,
    prefill_parts,
    rates,
    step_time,
    tensor_peak,
)
from gpuwise.estimate.speed_cases import PreparedCase
from gpuwise.estimate.speed_constants import FIT_SOURCE, SpeedConstants, kernel_arch
from gpuwise.estimate.speed_fit_serving import (
    implied_serving_prefill_fraction,
)
from gpuwise.estimate.train_speed import precision_class, training_speed


def _bisect(f: Callable[[float], float], target: float, lo: float, hi: float) -> float:
    """The x in [lo, hi] where the increasing f(x) reaches target (clamped to the ends)."""
    if f(hi) <= target:
        return hi
    if f(lo) >= target:
        return lo
    while hi / lo > 1.0001:
        mid = math.sqrt(lo * hi)
        if f(mid) < target:
            lo = mid
        else:
            hi = mid
    return math.sqrt(lo * hi)


def _prefill_rate_key(pc: PreparedCase, sc: SpeedConstants) -> str:
    path = sc.kernel_rate(pc.engine, pc.kernel, pc.inputs.built, pc.backend)
    rate = tensor_peak(pc.gpu, path.rate, sc)[1]
    return prefill_group_rate(rate, pc.kernel, path.weight_only_gemm)


def implied_prefill_fraction(pc: PreparedCase, sc: SpeedConstants) -> float | None:
    """The share of the tensor rate that reproduces the measured prefill tokens/s exactly.

    None when compute is not what the case measured: when the GEMMs at that share would take
    less than `compute_share_min` of the time (links, weight reads or overheads dominate), the
    share is not identifiable and would only absorb their error.
    """
    base = rates(pc.r, sc, pc.gpu, pc.inputs.backend, pc.inputs.built)
    path = sc.kernel_rate(pc.engine, pc.kernel, pc.inputs.built, pc.backend)
    peak, _ = tensor_peak(pc.gpu, path.rate, sc)
    prompt = pc.r.prompt_tokens
    parts = prefill_parts(
        pc.r, replace(base, flops=peak), prompt, 1, collective_bps(pc.gpu, sc, pc.r.req.gpus)
    )
    measured = prompt / pc.measured
    if pc.case.get("includes_first_token"):  # a time to first token: less its decode step
        link_s = sc.link(pc.gpu, pc.r.req.gpus).allreduce_latency_us * 1e-6
        terms = decode_terms(pc.r, 1, prompt, 0.0, link_s, base.kv_read_factor)
        measured -= step_time(terms, base)[0]
    compute = measured - parts.staging - parts.comm - parts.overhead
    if compute < sc.fit.compute_share_min * measured or compute <= parts.memory:
        return None
    gemm = compute - parts.attention  # attention at its own 16-bit rate (W8A8 FP8)
    if gemm <= 0:
        return None
    return min(1.0, parts.compute / gemm)  # parts.compute is the GEMMs' time at the full peak


def implied_train_utilisation(pc: PreparedCase, sc: SpeedConstants) -> float | None:
    """The share of the achievable matmul rate that reproduces the measured training tokens/s
    (None when compute is under `compute_share_min` of the step at that share)."""

    def estimate(u: float) -> SpeedEstimate:
        entry = TrainEfficiency(mode="any", matmul_utilisation=u, source=FIT_SOURCE)
        return training_speed(pc.r, replace(sc, training=(entry,)), pc.inputs)

    u = _bisect(lambda x: estimate(x).train_tokens_per_s or 0.0, pc.measured, 1e-3, 1.0)
    est = estimate(u)
    step = est.step_time_s or 0.0
    spent = ("exposed_s", "offload_s", "expert_loop_s", "dequant_s")
    compute = step - sum(est.factors.get(k, 0.0) for k in spent)
    if step and compute / step < sc.fit.compute_share_min:
        return None
    return u


def _pooled(values: Iterable[float], parent: float, weight: float) -> float:
    """Geometric mean of the values with the parent counted `weight` times."""
    logs = [math.log(v) for v in values]
    return math.exp((sum(logs) + weight * math.log(parent)) / (len(logs) + weight))


def _hierarchy(
    items: Sequence[tuple[tuple[str, ...], str, float]],
    levels: Sequence[Callable[[tuple[str, ...]], tuple[str, ...]]],
    anchor: float,
    sc: SpeedConstants,
    root_parent: Callable[[tuple[str, ...]], float] | None = None,
) -> dict[tuple[str, ...], tuple[float, list[str]]]:
    """Pool implied values level by level: root from the anchor, each level from its parent.

    `items` are (full key, case id, value); `levels` map a full key to the key at each level,
    from the root (all "any") to the most specific. `root_parent`: each first-level group's
    own parent value (pooled as any level is), instead of the anchor's prior.
    """
    out: dict[tuple[str, ...], tuple[float, list[str]]] = {}
    for depth, level in enumerate(levels):
        groups: dict[tuple[str, ...], list[tuple[str, float]]] = defaultdict(list)
        for key, cid, value in items:
            groups[level(key)].append((cid, value))
        for gkey, members in groups.items():
            if depth == 0 and root_parent is not None:
                parent_value, weight = root_parent(gkey), sc.fit.pooling_cases
            elif depth == 0:
                parent_value, weight = anchor, sc.fit.prior_cases
            else:
                parent_value = out[_parent_key(gkey, levels, depth, members, items)][0]
                weight = sc.fit.pooling_cases
            value = _pooled([v for _, v in members], parent_value, weight)
            out[gkey] = (value, sorted(c for c, _ in members))
    return out


def _parent_key(
    gkey: tuple[str, ...],
    levels: Sequence[Callable[[tuple[str, ...]], tuple[str, ...]]],
    depth: int,
    members: list[tuple[str, float]],
    items: Sequence[tuple[tuple[str, ...], str, float]],
) -> tuple[str, ...]:
    """The key one level up of the cases in a group (they share it by construction)."""
    cid = members[0][0]
    full = next(k for k, c, _ in items if c == cid)
    return levels[depth - 1](full)


def _implied_share(pc: PreparedCase, sc: SpeedConstants) -> float | None:
    """A prefill case's share, or a prefill-dominated serving case's."""
    if pc.kind == "prefill":
        return implied_prefill_fraction(pc, sc)
    if pc.kind == "serving":
        return implied_serving_prefill_fraction(pc, sc)
    return None


def fit_prefill(cases: Sequence[PreparedCase], sc: SpeedConstants) -> list[PrefillEfficiency]:
    """Prefill shares pooled from the tensor path down to one engine on one architecture.

    Three chains share the root: rate → engine → engine on a backend → engine on an
    architecture; rate → backend → every engine on an architecture; and engine → engine on a
    backend at any precision (for a precision the engine was not measured at). A
    mixture-of-experts server enters them divided by its engine's MoE factor (`moe_factors`),
    so it tells what the card and engine reach without a few MoE servers setting what a dense
    model's GEMMs reach (blind w24-01, w25-04: vLLM's dense FP8 share on Hopper was learnt
    from DeepSeek-R1 and Qwen3-235B servers alone, at 0.23); the MoE shares themselves pool
    apart per engine (`_fit_moe_prefill`).
    """
    shares = [
        ((pc.engine, pc.backend, kernel_arch(pc.gpu), _prefill_rate_key(pc, sc)), pc.id, value)
        for pc in cases
        if (value := _implied_share(pc, sc)) is not None
    ]
    moe_ids = {pc.id for pc in cases if pc.r.req.model.moe is not None}
    serving = {pc.id for pc in cases if pc.kind == "serving"}
    # a MoE server's implied share absorbs what the serving model misses on MoE at load
    # (routing imbalance, expert traffic, the MoE kernels' scheduling); a MoE prompt benchmark
    # measures the expert GEMMs that moe_tile_slowdown already prices, so it enters as it is
    loaded = moe_ids & serving
    factors = moe_factors(
        [i for i in shares if i[1] in serving and i[1] not in moe_ids],
        [i for i in shares if i[1] in loaded],
    )
    items = [
        (key, cid, value / factors.get(key[0], factors.get("any", 1.0)) if cid in loaded else value)
        for key, cid, value in shares
    ]
    prompts = [item for item in items if item[1] not in serving]

    def root(k: tuple[str, ...]) -> tuple[str, ...]:
        return ("any", "any", "any", "any")

    def rate(k: tuple[str, ...]) -> tuple[str, ...]:
        return ("any", "any", "any", k[3])

    by_engine: list[Callable[[tuple[str, ...]], tuple[str, ...]]] = [
        root,
        rate,
        lambda k: (k[0], "any", "any", k[3]),
        lambda k: (k[0], k[1], "any", k[3]),
        lambda k: k,
    ]
    by_card: list[Callable[[tuple[str, ...]], tuple[str, ...]]] = [
        root,
        rate,
        lambda k: ("any", k[1], "any", k[3]),
        lambda k: ("any", k[1], k[2], k[3]),
    ]
    any_rate: list[Callable[[tuple[str, ...]], tuple[str, ...]]] = [
        root,
        lambda k: (k[0], "any", "any", "any"),
        lambda k: (k[0], k[1], "any", "any"),
    ]
    pooled = _hierarchy(items, by_engine, sc.fit.prefill_fraction, sc)
    # a serving run's share also absorbs its engine's scheduling: it informs that engine's
    # shares, not what every engine's GEMMs reach on the card
    pooled.update(_hierarchy(prompts, by_card, sc.fit.prefill_fraction, sc))
    pooled.update(_hierarchy(items, any_rate, sc.fit.prefill_fraction, sc))
    moe = [item for item in shares if item[1] in moe_ids]
    return _entries(pooled, "any") + _entries(_fit_moe_prefill(moe, pooled, sc), "moe")


def moe_factors(
    dense: Sequence[tuple[tuple[str, ...], str, float]],
    moe: Sequence[tuple[tuple[str, ...], str, float]],
) -> dict[str, float]:
    """How much lower an engine's implied share runs on MoE models than on dense ones, per
    engine ("any": over every engine): the geometric mean, over each (engine, backend,
    architecture, rate) measured with both, of the MoE cases' mean share ÷ the dense cases'
    (logs averaged); an engine with no such pair takes every engine's."""

    def log_means(items: Sequence[tuple[tuple[str, ...], str, float]]) -> dict[Any, float]:
        groups: dict[tuple[str, ...], list[float]] = defaultdict(list)
        for key, _, value in items:
            groups[key].append(math.log(value))
        return {k: sum(v) / len(v) for k, v in groups.items()}

    d, m = log_means(dense), log_means(moe)
    ratios: dict[str, list[float]] = defaultdict(list)
    for key in d.keys() & m.keys():
        ratios[key[0]].append(m[key] - d[key])
        ratios["any"].append(m[key] - d[key])
    return {e: math.exp(sum(r) / len(r)) for e, r in ratios.items()}


def _fit_moe_prefill(
    items: Sequence[tuple[tuple[str, ...], str, float]],
    dense: dict[tuple[str, ...], tuple[float, list[str]]],
    sc: SpeedConstants,
) -> dict[tuple[str, ...], tuple[float, list[str]]]:
    """Mixture-of-experts shares per engine: the engine at a rate → on a backend → on an
    architecture, the first level pooled toward the dense share of that engine and rate (or
    of the rate): an engine's MoE runs move its dense share only as far as they agree."""
    levels: list[Callable[[tuple[str, ...]], tuple[str, ...]]] = [
        lambda k: (k[0], "any", "any", k[3]),
        lambda k: (k[0], k[1], "any", k[3]),
        lambda k: k,
    ]

    def dense_parent(gkey: tuple[str, ...]) -> float:
        parent = dense.get(gkey) or dense.get(("any", "any", "any", gkey[3]))
        return parent[0] if parent else sc.fit.prefill_fraction

    return _hierarchy(items, levels, sc.fit.prefill_fraction, sc, root_parent=dense_parent)


def _entries(
    pooled: dict[tuple[str, ...], tuple[float, list[str]]], kind: str
) -> list[PrefillEfficiency]:
    return [
        PrefillEfficiency(
            engine=e,
            backend=b,
            architecture=a,
            rate=r,
            fraction=round(min(1.0, value), 4),
            calibrated_on=ids,
            source=FIT_SOURCE,
            model_kind=kind,
        )
        for (e, b, a, r), (value, ids) in sorted(pooled.items())
    ]


def fit_training(cases: Sequence[PreparedCase], sc: SpeedConstants) -> list[TrainEfficiency]:
    """Training utilisation: every run → the precision class (16-bit or FP8 GEMMs) → dense or
    MoE at that precision → the mode → the mode on the architecture."""
    items = [
        (
            (
                precision_class(pc.r),
                "moe" if pc.r.req.model.moe else "dense",
                pc.r.req.mode,
                pc.gpu.architecture,
            ),
            pc.id,
            value,
        )
        for pc in cases
        if pc.kind == "train" and (value := implied_train_utilisation(pc, sc)) is not None
    ]
    levels: list[Callable[[tuple[str, ...]], tuple[str, ...]]] = [
        lambda k: ("any", "any", "any", "any"),
        lambda k: (k[0], "any", "any", "any"),
        lambda k: (k[0], k[1], "any", "any"),
        lambda k: (k[0], k[1], k[2], "any"),
        lambda k: k,
    ]
    pooled = _hierarchy(items, levels, sc.fit.train_matmul_utilisation, sc)
    return [
        TrainEfficiency(
            mode=m,
            architecture=a,
            precision=p,
            model_kind=k,
            matmul_utilisation=round(min(1.0, value), 4),
            calibrated_on=ids,
            source=FIT_SOURCE,
        )
        for (p, k, m, a), (value, ids) in sorted(pooled.items())
    ]
