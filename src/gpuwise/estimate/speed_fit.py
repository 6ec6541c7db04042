"""Fit the speed model's efficiencies to published measurements, reproducibly.

`fit(cases, sc)` returns the fitted groups (the content of data/speed_fitted.toml, which
benchmarks/calibrate_speed.py writes); `leave_one_source_out` refits without each source and
predicts it, which is the accuracy the benchmarks report as their headline.

Decode at batch 1 is linear in its three unknowns: step time = bytes ÷ bandwidth × 1/fraction
+ layers × overhead + quantized weights ÷ FP32 rate × work per weight. They are fitted by
non-negative least squares on relative errors, one value per engine and memory kind
(fraction), engine and backend (overhead), engine and weight format (dequantization). Prefill
and training have one unknown per case (the share of the tensor rate, the share of the
achievable matmul rate), found exactly by bisection and pooled in log space. Groups with few
cases lean on their parent (the engine on any card, or every engine) as much as
`pooling_cases` cases would (partial pooling), and the root leans on the anchors in
`[fit_settings]`; a group with no case takes its parent's value, which is what a left-out
source is predicted with.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from gpuwise.catalog.schema_speed import (
    DecodeEfficiency,
    DecodeOverhead,
    DequantCost,
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
    training_speed,
    vector_flops,
)
from gpuwise.estimate.speed_cases import PreparedCase, predicted
from gpuwise.estimate.speed_constants import FIT_SOURCE, SpeedConstants, kernel_arch
from gpuwise.estimate.speed_fit_serving import (
    decode_step_seconds,
    implied_serving_prefill_fraction,
)
from gpuwise.estimate.train_speed import precision_class

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


# ------------------------------------------------------------------ linear algebra
def _solve(matrix: list[list[float]], rhs: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (small dense systems)."""
    n = len(rhs)
    a = [[*row, rhs[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        p = a[col][col] or 1e-18
        for r in range(col + 1, n):
            f = a[r][col] / p
            if f:
                row, prow = a[r], a[col]
                for k in range(col, n + 1):
                    row[k] -= f * prow[k]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        s = a[r][n] - sum(a[r][k] * x[k] for k in range(r + 1, n))
        x[r] = s / (a[r][r] or 1e-18)
    return x


def nnls(
    rows: Sequence[tuple[dict[int, float], float]], n: int, free: set[int] | None = None
) -> tuple[list[float], set[int]]:
    """Least squares with x ≥ 0 for sparse rows (coefficients by variable, target).

    Active set: solve the normal equations on the free variables, pin the most negative one at
    zero, repeat; then free pinned variables whose gradient points inward (Lawson–Hanson).
    Returns the solution and its free set (a warm start for a similar problem).
    """
    ata = [[0.0] * n for _ in range(n)]
    atb = [0.0] * n
    for coefs, y in rows:
        items = list(coefs.items())
        for i, ci in items:
            atb[i] += ci * y
            row = ata[i]
            for j, cj in items:
                row[j] += ci * cj
    free = set(range(n)) if free is None else set(free) & set(range(n))
    x = [0.0] * n
    for _ in range(4 * n + 10):
        idx = sorted(free)
        sub = _solve([[ata[i][j] for j in idx] for i in idx], [atb[i] for i in idx])
        if any(v < 0 for v in sub):
            worst = idx[min(range(len(idx)), key=lambda k: sub[k])]
            free.discard(worst)
            continue
        x = [0.0] * n
        for k, i in enumerate(idx):
            x[i] = sub[k]
        grad = [atb[i] - sum(ata[i][j] * x[j] for j in range(n)) for i in range(n)]
        pinned = [i for i in range(n) if i not in free and grad[i] > 1e-12]
        if not pinned:
            return x, free
        free.add(max(pinned, key=lambda i: grad[i]))
    return x, free


# ------------------------------------------------------------------ decode
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
        t = decode_terms(pc.r, batch, _decode_context(pc), 0.0, link)
        bw = pc.gpu.memory_bandwidth_gbps or 1.0
        mem = (t.weight_bytes + t.kv_bytes) / (bw * 1e9)
        vec = vector_flops(pc.gpu)
        deq = t.quantized_weights / vec if vec else 0.0
        engine = sc.engine_key(pc.engine, pc.inputs.built, pc.backend)
        a = v.of("a", engine, pc.memory)
        tau = v.of("tau", engine, pc.backend)
        coefs = {a: mem / seconds, tau: t.layers * 1e-3 / seconds}
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
    if name == "a" and "-" in key:  # a backend's or SM's share (hbm-rocm, gddr-ecc-sm89) pools
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
        return a_min + value if var[0] == "a" else max(value, _FLOOR[var[0]])

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
    out = FitResult()
    a_min = 1 / sc.fit.decode_bandwidth_fraction_max
    for (name, group, key), i in sorted(v.index.items()):
        ids = sorted(held.get((name, group, key), set()))
        value = x[i]
        if name == "a":
            out.decode.append(
                DecodeEfficiency(
                    engine=group,
                    memory=key,
                    bandwidth_fraction=round(1 / (a_min + value), 4),
                    calibrated_on=ids,
                    source=FIT_SOURCE,
                )
            )
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


# ------------------------------------------------------------------ one-unknown fits
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
        terms = decode_terms(pc.r, 1, prompt, 0.0, link_s)
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
    compute = step - (est.factors.get("exposed_s", 0.0) + est.factors.get("offload_s", 0.0))
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
) -> dict[tuple[str, ...], tuple[float, list[str]]]:
    """Pool implied values level by level: root from the anchor, each level from its parent.

    `items` are (full key, case id, value); `levels` map a full key to the key at each level,
    from the root (all "any") to the most specific.
    """
    out: dict[tuple[str, ...], tuple[float, list[str]]] = {}
    for depth, level in enumerate(levels):
        groups: dict[tuple[str, ...], list[tuple[str, float]]] = defaultdict(list)
        for key, cid, value in items:
            groups[level(key)].append((cid, value))
        for gkey, members in groups.items():
            if depth == 0:
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
    backend at any precision (for a precision the engine was not measured at).
    """
    items = [
        ((pc.engine, pc.backend, kernel_arch(pc.gpu), _prefill_rate_key(pc, sc)), pc.id, value)
        for pc in cases
        if (value := _implied_share(pc, sc)) is not None
    ]
    serving = {pc.id for pc in cases if pc.kind == "serving"}
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
    return [
        PrefillEfficiency(
            engine=e,
            backend=b,
            architecture=a,
            rate=r,
            fraction=round(min(1.0, value), 4),
            calibrated_on=ids,
            source=FIT_SOURCE,
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


def fit(cases: Sequence[PreparedCase], sc: SpeedConstants) -> FitResult:
    """Every fitted group from the cases (decode first: prefill uses its overheads).

    Two passes: the first without serving cases prices their prefill, so the second can read
    the decode steps out of the decode-dominated ones (estimate/speed_fit_serving.py).
    """
    first = fit_decode(cases, sc)
    first.prefill = fit_prefill([c for c in cases if c.kind != "serving"], first.apply(sc))
    out = fit_decode(cases, sc, first.apply(sc))
    with_decode = out.apply(sc)
    out.prefill = fit_prefill(cases, with_decode)
    out.training = fit_training(cases, with_decode)
    return out


def leave_one_source_out(cases: Sequence[PreparedCase], sc: SpeedConstants) -> dict[str, float]:
    """Each case's prediction from a fit on every other source's cases."""
    out: dict[str, float] = {}
    for source in sorted({pc.source for pc in cases}):
        held = [pc for pc in cases if pc.source == source]
        fitted = fit([pc for pc in cases if pc.source != source], sc).apply(sc)
        for pc in held:
            out[pc.id] = predicted(pc, fitted)
    return out


def in_sample(cases: Sequence[PreparedCase], sc: SpeedConstants) -> dict[str, float]:
    """Each case's prediction from the fit on every case (what the shipped constants give)."""
    fitted = fit(cases, sc).apply(sc)
    return {pc.id: predicted(pc, fitted) for pc in cases}


def _toml_value(value: object) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        if not value:
            return "[]"
        inner = ",\n".join("  " + _toml_value(v) for v in value)
        return "[\n" + inner + ",\n]"
    return repr(value)


HEADER = """# GENERATED by benchmarks/calibrate_speed.py from tests/data/speed_cases.toml.
# Do not edit: efficiencies of the speed model fitted to published measurements
# (estimate/speed_fit.py); `calibrated_on` lists the cases each value was fitted on (a parent
# value: its children's). Hand-written constants and the fit's anchors are in speed.toml.

[sources.spd-fit]
url = "file:tests/data/speed_cases.toml"
title = "gpuwise calibration fit over the measurements in tests/data/speed_cases.toml"
retrieved = 2026-12-02
"""


def to_toml(result: FitResult, header: str = HEADER) -> str:
    """The fitted groups as data/speed_fitted.toml text (sorted, so a refit diffs cleanly)."""
    lines = [header.rstrip(), ""]
    groups = (
        ("decode_efficiency", result.decode, ("engine", "memory", "bandwidth_fraction")),
        ("decode_overhead", result.overheads, ("engine", "backend", "ms_per_layer")),
        ("dequant_cost", result.dequant, ("engine", "kind", "flops_per_weight")),
        (
            "prefill_efficiency",
            result.prefill,
            ("engine", "backend", "architecture", "rate", "fraction"),
        ),
        (
            "train_efficiency",
            result.training,
            ("mode", "architecture", "precision", "model_kind", "matmul_utilisation"),
        ),
    )
    for table, entries, keys in groups:
        for entry in entries:
            lines.append(f"[[{table}]]")
            for key in keys:
                lines.append(f"{key} = {_toml_value(getattr(entry, key))}")
            lines.append(f"calibrated_on = {_toml_value(list(entry.calibrated_on))}")
            lines.append(f"source = {_toml_value(entry.source)}")
            lines.append("")
    return "\n".join(lines)
