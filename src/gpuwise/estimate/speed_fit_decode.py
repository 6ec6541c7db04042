"""The decode fit: bandwidth share, per-layer overhead and dequantization work, by non-negative
least squares on relative errors of the step time (linear in the three), pooled from every
engine down to one engine on one memory kind (estimate/speed_fit.py runs it).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from gpuwise.catalog.schema_speed import (
    DecodeEfficiency,
    DecodeOverhead,
    DequantCost,
    PrefillEfficiency,
    TrainEfficiency,
)
from gpuwise.estimate.speed import (
    decode_terms,
    vector_flops,
)
from gpuwise.estimate.speed_cases import PreparedCase
from gpuwise.estimate.speed_constants import FIT_SOURCE, SpeedConstants
from gpuwise.estimate.speed_fit_serving import (
    decode_step_seconds,
)

DECODE_KINDS = ("decode",)


_FLOOR = {"tau": 0.01, "c": 0.5}
"""Smallest overhead (ms per layer) and dequantization work (FLOPs per weight) a relative
deviation is measured against, so values near zero are not pulled to exactly their parent's."""


_POOL_ITERATIONS = 4


@dataclass
class FitResult:
    """The fitted groups, ready for SpeedConstants.with_fitted or the TOML writer."""

    decode: list[DecodeEfficiency] = field(default_factory=list)
    overheads: list[DecodeOverhead] = field(default_factory=list)
    dequant: list[DequantCost] = field(default_factory=list)
    prefill: list[PrefillEfficiency] = field(default_factory=list)
    training: list[TrainEfficiency] = field(default_factory=list)

    def apply(self, sc: SpeedConstants) -> SpeedConstants:
        """The constants with these fitted groups in place."""
        return sc.with_fitted(
            tuple(self.decode),
            tuple(self.overheads),
            tuple(self.dequant),
            tuple(self.prefill),
            tuple(self.training),
        )


def _solve(matrix: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """The normal equations' solution; least squares where the system is singular (a variable
    no row constrains, a pooled group with one member)."""
    try:
        solved: np.ndarray = np.linalg.solve(matrix, rhs)
    except np.linalg.LinAlgError:
        solved = np.linalg.lstsq(matrix, rhs, rcond=None)[0]
    return solved


def nnls(
    rows: Sequence[tuple[dict[int, float], float]], n: int, free: set[int] | None = None
) -> tuple[list[float], set[int]]:
    """Least squares with x ≥ 0 for sparse rows (coefficients by variable, target).

    Active set: solve the normal equations on the free variables, pin the most negative one at
    zero, repeat; then free pinned variables whose gradient points inward (Lawson–Hanson).
    Returns the solution and its free set (a warm start for a similar problem). The linear
    algebra is numpy's (LAPACK): the leave-one-source-out check refits this a few hundred
    times, and a hand-written elimination made it the slowest part of the test suite.
    """
    a = np.zeros((len(rows), n))
    b = np.zeros(len(rows))
    for r, (coefs, y) in enumerate(rows):
        for i, c in coefs.items():
            a[r, i] += c
        b[r] = y
    ata, atb = a.T @ a, a.T @ b
    free = set(range(n)) if free is None else set(free) & set(range(n))
    x = np.zeros(n)
    for _ in range(4 * n + 10):
        idx = sorted(free)
        sub = _solve(ata[np.ix_(idx, idx)], atb[idx]) if idx else np.zeros(0)
        if (sub < 0).any():
            free.discard(idx[int(np.argmin(sub))])
            continue
        x = np.zeros(n)
        x[idx] = sub
        grad = atb - ata @ x
        pinned = [i for i in range(n) if i not in free and grad[i] > 1e-12]
        if not pinned:
            return [float(v) for v in x], free
        free.add(max(pinned, key=lambda i: grad[i]))
    return [float(v) for v in x], free


@dataclass
class _Vars:
    """Variable indices of a hierarchical linear fit."""

    index: dict[tuple[str, str, str], int] = field(default_factory=dict)

    def of(self, name: str, group: str, key: str) -> int:
        return self.index.setdefault((name, group, key), len(self.index))


def _decode_rows(
    cases: Sequence[PreparedCase], sc: SpeedConstants, pre: SpeedConstants | None = None
) -> tuple[list[tuple[dict[int, float], float]], _Vars, dict[tuple[str, str, str], list[str]]]:
    """One row per decode case (and, given `pre`, per serving case whose decode steps are most
    of its time: estimate/speed_fit_serving.py), then pooling rows child → parent → anchor."""
    v = _Vars()
    members: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    rows: list[tuple[dict[int, float], float]] = []
    a_min = 1 / sc.fit.decode_bandwidth_fraction_max
    for pc in cases:
        step = decode_step_seconds(pc, pre)
        if step is None:
            continue
        seconds, batch = step
        link = sc.link(pc.gpu, pc.r.req.gpus).allreduce_latency_us * 1e-6
        kv_factor, _ = sc.kv_read_factor(pc.engine, pc.backend, pc.r.kv.id, pc.inputs.built)
        t = decode_terms(pc.r, batch, _decode_context(pc), 0.0, link, kv_factor)
        bw = pc.gpu.memory_bandwidth_gbps or 1.0
        mem = (t.weight_bytes + t.kv_bytes) / (bw * 1e9)
        expert_mem = t.expert_bytes / (bw * 1e9)
        vec = vector_flops(pc.gpu)
        deq = t.quantized_weights / vec if vec else 0.0
        engine = sc.engine_key(pc.engine, pc.inputs.built, pc.backend)
        a = v.of("a", engine, pc.memory)
        tau = v.of("tau", engine, pc.backend)
        coefs = {a: (mem - expert_mem) / seconds, tau: t.layers * 1e-3 / seconds}
        if expert_mem:
            e = v.of("e", engine, pc.memory)
            coefs[e] = expert_mem / seconds
            members[("e", engine, pc.memory)].append(pc.id)
        if deq:
            fmt = f"{pc.kernel}:{pc.r.fmt.id}"
            c = v.of("c", engine, fmt)
            coefs[c] = deq / seconds
            members[("c", engine, fmt)].append(pc.id)
        # 1/fraction = a_min + x with x ≥ 0: move the a_min × memory term to the target
        rows.append((coefs, 1 - (a_min * mem + t.link_s) / seconds))
        members[("a", engine, pc.memory)].append(pc.id)
        members[("tau", engine, pc.backend)].append(pc.id)
    return rows, v, members


def _decode_context(pc: PreparedCase) -> float:
    return pc.r.prompt_tokens + pc.inputs.gen_tokens / 2


def _parent(
    var: tuple[str, str, str],
    eras: dict[str, str] | None = None,
    classes: dict[str, str] | None = None,
) -> tuple[str, str, str] | None:
    """An era pools with its engine first; overheads pool within an engine (engine on any
    backend), then with the engines that launch a step the same way (`classes`: "graphs" or
    "eager", speed.toml `[[step_launch]]`) — an era without CUDA graphs with the eager class,
    not with its engine; fractions and dequantization work pool across engines (every engine on
    this memory or format)."""
    name, group, key = var
    if name == "tau":
        return _overhead_parent(group, key, eras or {}, classes or {})
    if eras and group in eras:
        return (name, eras[group], key)
    if name == "c" and ":" in key:  # one format (gguf:q2_k) pools with its kind (gguf)
        return (name, group, key.split(":")[0])
    if (
        name in ("a", "e") and "-" in key
    ):  # a backend's or SM's share (hbm-rocm, gddr-ecc-sm89) pools
        return (name, group, key.rsplit("-", 1)[0])  # with the shorter key's (hbm, gddr-ecc)
    if (group, key) == ("any", "any"):
        return None
    return (name, "any", key) if group != "any" else (name, "any", "any")


def _overhead_parent(
    group: str, key: str, eras: dict[str, str], classes: dict[str, str]
) -> tuple[str, str, str] | None:
    """engine on a backend → engine → its launch class → every engine (an era that launches
    like its engine pools with the engine on the same backend first)."""
    if group == "any" and key == "any":
        return None
    cls = classes.get(group)
    engine = eras.get(group)
    if engine and key != "any" and classes.get(engine) == cls:
        return ("tau", engine, key)
    if key != "any":
        return ("tau", group, "any")
    if group in ("graphs", "eager") or not cls:
        return ("tau", "any", "any")
    return ("tau", cls, "any")


def _families(sc: SpeedConstants) -> tuple[dict[str, str], dict[str, str]]:
    """Era → engine, and engine or era → launch class ("graphs" or "eager")."""
    eras = {e.era: e.engine for e in sc.eras}
    classes = {x.engine: "graphs" if x.cuda_graphs else "eager" for x in sc.launches}
    return eras, classes


def _pool_rows(
    v: _Vars, sc: SpeedConstants, x: list[float] | None
) -> list[tuple[dict[int, float], float]]:
    """Rows tying each group to its parent, and each root to its anchor.

    A deviation is weighed relative to the larger of the two values (iterated), so pooling acts
    on ratios: an engine whose overhead is ten times another's is not pulled back by the
    absolute size of the difference.
    """
    eras, classes = _families(sc)
    pool = math.sqrt(sc.fit.pooling_cases)
    prior = math.sqrt(sc.fit.prior_cases)
    a_min = 1 / sc.fit.decode_bandwidth_fraction_max
    anchors = {
        "a": 1 / sc.fit.decode_bandwidth_fraction - a_min,
        "tau": sc.fit.decode_overhead_ms_per_layer,
        "c": sc.fit.dequant_flops_per_weight,
    }
    for name in anchors:
        v.of(name, "any", "any")
    pending = list(v.index)
    while pending:  # close the hierarchy: every group's ancestors are variables too
        parent = _parent(pending.pop(), eras, classes)
        if parent and parent not in v.index:
            v.of(*parent)
            pending.append(parent)

    def size(var: tuple[str, str, str]) -> float:
        value = x[v.index[var]] if x is not None and v.index[var] < len(x) else 0.0
        return a_min + value if var[0] in ("a", "e") else max(value, _FLOOR[var[0]])

    rows: list[tuple[dict[int, float], float]] = []
    for child in list(v.index):
        parent = _parent(child, eras, classes)
        if parent:
            s = pool / max(size(child), size(parent))
            rows.append(({v.index[child]: s, v.index[parent]: -s}, 0.0))
    for name, value in anchors.items():
        root = (name, "any", "any")
        s = prior / max(size(root), a_min + value if name == "a" else max(value, _FLOOR[name]))
        rows.append(({v.index[root]: s}, value * s))
    if ("e", "any", "any") in v.index:  # the experts' share leans on the dense share
        e_root, a_root = ("e", "any", "any"), ("a", "any", "any")
        s = prior / max(size(e_root), size(a_root))
        rows.append(({v.index[e_root]: s, v.index[a_root]: -s}, 0.0))
    return rows


def fit_decode(
    cases: Sequence[PreparedCase], sc: SpeedConstants, pre: SpeedConstants | None = None
) -> FitResult:
    """Bandwidth fractions, per-layer overheads and dequantization work from decode cases (and
    from decode-dominated serving cases, given the constants `pre` to price their prefill)."""
    kinds = DECODE_KINDS + (("serving",) if pre is not None else ())
    rows, v, members = _decode_rows([c for c in cases if c.kind in kinds], sc, pre)
    x, free = nnls(rows + _pool_rows(v, sc, None), len(v.index))
    for _ in range(_POOL_ITERATIONS - 1):
        x, free = nnls(rows + _pool_rows(v, sc, x), len(v.index), free)
    held: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    eras, classes = _families(sc)
    for var, ids in members.items():  # a parent holds the cases of its descendants
        node: tuple[str, str, str] | None = var
        while node:
            held[node].update(ids)
            node = _parent(node, eras, classes)
    return _result(v, x, held, 1 / sc.fit.decode_bandwidth_fraction_max)


def _result(
    v: _Vars, x: list[float], held: dict[tuple[str, str, str], set[str]], a_min: float
) -> FitResult:
    """The fitted variables as catalog entries (the experts' share beside the dense share)."""
    out = FitResult()
    for (name, group, key), i in sorted(v.index.items()):
        ids = sorted(held.get((name, group, key), set()))
        value = x[i]
        if name == "a":
            e = v.index.get(("e", group, key))
            out.decode.append(
                DecodeEfficiency(
                    engine=group,
                    memory=key,
                    bandwidth_fraction=round(1 / (a_min + value), 4),
                    expert_bandwidth_fraction=round(1 / (a_min + x[e]), 4)
                    if e is not None
                    else None,
                    calibrated_on=ids,
                    source=FIT_SOURCE,
                )
            )
        elif name == "e":
            continue
        elif name == "tau":
            out.overheads.append(
                DecodeOverhead(
                    engine=group,
                    backend=key,
                    ms_per_layer=round(value, 5),
                    calibrated_on=ids,
                    source=FIT_SOURCE,
                )
            )
        else:
            out.dequant.append(
                DequantCost(
                    engine=group,
                    kind=key,
                    flops_per_weight=round(value, 3),
                    calibrated_on=ids,
                    source=FIT_SOURCE,
                )
            )
    return out
