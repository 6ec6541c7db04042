"""Fit an engine's decode share on this GPU to the decode rates of recorded runs (pure).

`gpuwise record --tokens-from URL --model … -- CMD` keeps the engine's per-sequence decode rate
(1 ÷ mean inter-token latency, monitor/tokens.py) beside the job. gpuwise's batch-1 decode time
per token is weight and KV bytes ÷ (datasheet bandwidth × the engine's share) plus per-layer fixed
costs and dequantisation (estimate/speed.py); the share is the one number this machine can tell
better than the catalog. For each run the share that makes the estimate equal the measurement is
found by bisection on the real speed model (decode rate rises with the share), and each
(GPU, engine) gets the median over its runs, written as a `measured_rate` the speed model then
uses for that engine on that GPU (``SpeedConstants.decode_on``).

Only runs where one request ran at a time are used (batched decode is a different regime), and
none whose estimate offloaded weights to the CPU. A run faster than the model allows at the full
datasheet bandwidth is reported, not fitted: the fixed costs, not the share, are wrong for it.
"""

from __future__ import annotations

import datetime as dt
import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from gpuwise.catalog.schema import Gpu
from gpuwise.catalog.schema_bench import MeasuredRate
from gpuwise.estimate.resolve import Resolved
from gpuwise.estimate.speed import SpeedInputs, inference_speed
from gpuwise.estimate.speed_constants import SpeedConstants, engine_family

SHARE_LOW, SHARE_HIGH = 0.01, 1.0
"""The schema's bounds on a measured fraction (0 < f ≤ 1); below 1% is not a working engine."""
BISECT_STEPS = 40


@dataclass(frozen=True)
class DecodeRun:
    """One recorded run: the resolved job, the card, and the measured per-sequence decode rate."""

    run_id: int
    r: Resolved
    gpu: Gpu
    gen_tokens: int
    measured_tokens_per_s: float

    @property
    def engine(self) -> str:
        """The engine family whose share this run informs."""
        return engine_family(self.r.engine.id)


def _with_share(sc: SpeedConstants, gpu: Gpu, engine: str, share: float) -> SpeedConstants:
    """The constants with this engine's decode share on this GPU set to `share`."""
    bw = gpu.memory_bandwidth_gbps or 1.0
    entry = MeasuredRate(
        source="fit",
        gpu=gpu.id,
        metric="decode_bandwidth",
        engine=engine,
        fraction=share,
        measured_value=share * bw,
        datasheet_value=bw,
        unit="GB/s",
        measured_on=dt.date(2000, 1, 1),
    )
    others = tuple(
        m
        for m in sc.measured
        if not (m.gpu == gpu.id and m.metric == "decode_bandwidth" and m.engine == engine)
    )
    return replace(sc, measured=(*others, entry))


def decode_rate(run: DecodeRun, sc: SpeedConstants, share: float | None = None) -> float:
    """gpuwise's batch-1 decode tokens/s for the run (with the catalog's share, or `share`)."""
    if share is not None:
        sc = _with_share(sc, run.gpu, run.engine, share)
    est = inference_speed(run.r, sc, SpeedInputs(gpu=run.gpu, gen_tokens=run.gen_tokens))
    return float(est.decode_tokens_per_s or 0.0)


def implied_share(run: DecodeRun, sc: SpeedConstants) -> float | None:
    """The share at which the estimate equals the measurement; None when no share in range does
    (faster than the model allows at the full bandwidth, or slower than at 1%)."""
    m = run.measured_tokens_per_s
    if decode_rate(run, sc, SHARE_HIGH) < m or decode_rate(run, sc, SHARE_LOW) > m:
        return None
    lo, hi = SHARE_LOW, SHARE_HIGH
    for _ in range(BISECT_STEPS):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if decode_rate(run, sc, mid) < m else (lo, mid)
    return (lo + hi) / 2


def _error_pct(estimated: float, measured: float) -> float:
    return (estimated - measured) / measured * 100


def fit(runs: Iterable[DecodeRun], sc: SpeedConstants) -> dict[str, Any]:
    """Per (GPU, engine): the median implied share and the error before/after; and the runs that
    could not be fitted, with the fastest rate the model allows for them."""
    groups: dict[tuple[str, str], list[tuple[DecodeRun, float]]] = {}
    unfit = []
    for run in runs:
        share = implied_share(run, sc)
        if share is None:
            unfit.append(
                {
                    "run": run.run_id,
                    "measured_tokens_per_s": run.measured_tokens_per_s,
                    "max_tokens_per_s": decode_rate(run, sc, SHARE_HIGH),
                }
            )
            continue
        groups.setdefault((run.gpu.id, run.engine), []).append((run, share))
    fitted = []
    for (gpu_id, engine), pts in sorted(groups.items()):
        share = statistics.median(s for _, s in pts)
        runs = [r for r, _ in pts]
        before = [abs(_error_pct(decode_rate(r, sc), r.measured_tokens_per_s)) for r in runs]
        after = [abs(_error_pct(decode_rate(r, sc, share), r.measured_tokens_per_s)) for r in runs]
        fitted.append(
            {
                "gpu": gpu_id,
                "engine": engine,
                "share": round(share, 4),
                "datasheet_gbps": pts[0][0].gpu.memory_bandwidth_gbps,
                "runs": [r.run_id for r, _ in pts],
                "measured_tokens_per_s": [r.measured_tokens_per_s for r, _ in pts],
                "mean_abs_error_pct_before": statistics.fmean(before),
                "mean_abs_error_pct_after": statistics.fmean(after),
            }
        )
    return {"fitted": fitted, "unfit": unfit}


def override(
    fitted: Iterable[Mapping[str, Any]], day: dt.date, url: str
) -> tuple[dict[str, list[dict[str, Any]]], Any, dict[str, Any]]:
    """The managed file's `measured_rate` entries, which old ones they replace (same GPU, metric
    and engine), and their source."""
    rows = list(fitted)
    sid = f"measured-decode-runs-{day.isoformat()}"
    used = sorted({r for f in rows for r in f["runs"]})
    source = {
        "url": url,
        "retrieved": day,
        "title": f"measured on this machine, {day.isoformat()}: decode rate of recorded runs "
        f"{', '.join(map(str, used))} (gpuwise record --tokens-from) against their estimates",
    }
    entries = [
        {
            "gpu": f["gpu"],
            "metric": "decode_bandwidth",
            "engine": f["engine"],
            "fraction": f["share"],
            "measured_value": round(f["share"] * f["datasheet_gbps"], 3),
            "datasheet_value": f["datasheet_gbps"],
            "unit": "GB/s",
            "method": "decode of recorded runs "
            + ", ".join(
                f"{r} ({m:.1f} tok/s)"
                for r, m in zip(f["runs"], f["measured_tokens_per_s"], strict=True)
            ),
            "measured_on": day,
            "source": sid,
        }
        for f in rows
    ]
    keys = {(f["gpu"], f["engine"]) for f in rows}

    def replaces(kind: str, entry: dict[str, Any]) -> bool:
        return (
            kind == "measured_rate"
            and entry.get("metric") == "decode_bandwidth"
            and (entry.get("gpu"), entry.get("engine")) in keys
        )

    return {"measured_rate": entries}, replaces, {sid: source}
