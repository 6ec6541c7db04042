"""Error bands: how far held-out measurements fell from the estimate, and the band a figure gets.

The leave-one-source-out residuals (estimate/speed_fit.py) of each kind of figure, engine and
card class give the 10th and 90th percentiles of measured ÷ estimated; benchmarks/calibrate_speed.py
writes them to data/speed_band.toml (with the memory cases' ratios as the "vram" band: no memory
constant is fitted to them, so every memory case is held out). A figure's band is its value times
those two ratios; times (seconds, hours) take the inverse. A group needs `MIN_CASES` cases of its
own, else the figure takes its parent's band (the engine on any card, any engine on the class,
every case of the kind), so a band never rests on a handful of runs. A parent is pooled from
the cases its children did not keep, so each case is scored by the band it is given and about
8 in 10 fall inside (benchmarks/band_coverage.py reports it).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from gpuwise.catalog.schema import Gpu
from gpuwise.catalog.schema_speed import ErrorBand
from gpuwise.estimate.speed_constants import SpeedConstants, card_class, engine_family

MIN_CASES = 12
"""Fewest held-out cases a group needs for a band of its own (p10 and p90 then rest on at
least one case beyond each of them)."""
BAND_SOURCE = "spd-band"
CASE_KINDS = {"decode": "decode", "e2e": "decode", "prefill": "prefill", "serving": "serving"}
CASE_KINDS["train"] = "train"
RATES = {
    "decode": ("decode_tokens_per_s",),
    "prefill": ("prefill_tokens_per_s",),
    "serving": ("serving_tokens_per_s",),
    "train": ("train_tokens_per_s",),
}
TIMES = {"prefill": ("time_to_first_token_s",), "train": ("step_time_s", "train_time_h")}


def percentile(values: list[float], q: float) -> float:
    """The q-th quantile (0–1) of the values, linearly interpolated between order statistics."""
    xs = sorted(values)
    pos = q * (len(xs) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def _pools(
    ratios: Iterable[tuple[str, str, str, float]], min_cases: int
) -> dict[tuple[str, str, str], list[float]]:
    """Each case in the group it will be looked up in (SpeedConstants.band's order): its own
    engine and card class when that group has `min_cases`; else, among the cases left, the
    engine on any card; else any engine on the class. Every case also joins its kind's pool
    ("any", "any"), the broadest prior. Pooling a parent only from the cases its children did
    not keep stops the majority engine (llama.cpp) from setting the band of the others."""
    left: list[tuple[str, str, str, float]] = list(ratios)
    out: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for kind, _, _, ratio in left:
        out[(kind, "any", "any")].append(ratio)
    for level in ((1, 2), (1,), (2,)):
        groups: dict[tuple[str, str, str], list[tuple[str, str, str, float]]] = defaultdict(list)
        for row in left:
            engine = row[1] if 1 in level else "any"
            cls = row[2] if 2 in level else "any"
            groups[(row[0], engine, cls)].append(row)
        kept = {key: rows for key, rows in groups.items() if len(rows) >= min_cases}
        for key, rows in kept.items():
            out[key] = [r[3] for r in rows]
        left = [row for key, rows in groups.items() if key not in kept for row in rows]
    return out


def error_bands(
    ratios: Iterable[tuple[str, str, str, float]], min_cases: int = MIN_CASES
) -> list[ErrorBand]:
    """Bands from (kind, engine, card class, measured ÷ estimated) of held-out cases: every
    group with at least `min_cases` cases of its own (see `_pools`) and each kind's pool,
    sorted. A band always holds the estimate itself (p10 ≤ 1 ≤ p90): a group the model
    under- or over-predicts throughout widens to it rather than shifting the figure, so the
    pessimistic end a plan checks at is never faster than the estimate."""
    out = []
    for (kind, engine, cls), values in sorted(_pools(ratios, min_cases).items()):
        out.append(
            ErrorBand(
                kind=kind,
                engine=engine,
                card_class=cls,
                p10=round(min(percentile(values, 0.1), 1.0), 3),
                p90=round(max(percentile(values, 0.9), 1.0), 3),
                cases=len(values),
                source=BAND_SOURCE,
            )
        )
    return out


def with_band(
    est: Any, sc: SpeedConstants, kind: str, engine: str, gpu: Gpu
) -> dict[str, list[float]]:
    """The p10–p90 range of each figure of `est` (a SpeedEstimate) of this kind (empty without
    band data): rates times the two ratios, times divided by them."""
    band = sc.band(kind, engine_family(engine), card_class(gpu))
    if band is None:
        return {}
    out: dict[str, list[float]] = {}
    for name in RATES.get(kind, ()):
        value = getattr(est, name, None)
        if value:
            out[name] = [value * band.p10, value * band.p90]
    for name in TIMES.get(kind, ()):
        value = getattr(est, name, None)
        if value:
            out[name] = [value / band.p90, value / band.p10]
    return out


def bands_of(
    est: Any, sc: SpeedConstants, kinds: tuple[str, ...], engine: str, gpu: Gpu
) -> dict[str, list[float]] | None:
    """The bands of every figure of `est` of these kinds (None when there is no band data)."""
    band: dict[str, list[float]] = {}
    for kind in kinds:
        band.update(with_band(est, sc, kind, engine, gpu))
    return band or None


def to_toml(bands: list[ErrorBand], header: str) -> str:
    """data/speed_band.toml text (sorted, so a refit diffs cleanly)."""
    lines = [header.rstrip(), ""]
    for b in bands:
        lines += [
            "[[error_band]]",
            f'kind = "{b.kind}"',
            f'engine = "{b.engine}"',
            f'card_class = "{b.card_class}"',
            f"p10 = {b.p10!r}",
            f"p90 = {b.p90!r}",
            f"cases = {b.cases}",
            f'source = "{b.source}"',
            "",
        ]
    return "\n".join(lines)
