"""How often a held-out measurement falls inside the error band gpuwise gives it.

The bands (data/speed_band.toml, written by benchmarks/calibrate_speed.py) are the p10 and p90
of measured ÷ estimated over leave-one-source-out estimates. Two coverages per kind of figure:

- shipped: each held-out ratio against the band the catalog assigns its engine and card class
  (with the fallback to pooled groups). About 80% inside is the target; below 80% would mean
  the fallback hands a case a band too narrow for it.
- nested: the bands recomputed without the case's own source, then looked up the same way: an
  honest out-of-sample check, since the shipped band has seen the case it is scored on.

Cases of a past engine era that only their own source measured (speed_band_data.lone_era_cases)
are left out, as they are of the bands. "below p10" is how often the slow end the plan checks
targets and deadlines at was not slow enough (about 10% expected). Prints a Markdown table for
benchmarks/README.md.
Run: PYTHONPATH=src python benchmarks/band_coverage.py
"""

from __future__ import annotations

import dataclasses
import sys
from collections import defaultdict
from pathlib import Path

import tomllib

sys.path.insert(0, str(Path(__file__).parent))

from calibrate_speed import MEMORY_CASES, _setup

from gpuwise.estimate.speed_band import CASE_KINDS, error_bands
from gpuwise.estimate.speed_band_data import lone_era_cases, vram_ratios
from gpuwise.estimate.speed_constants import SpeedConstants
from gpuwise.estimate.speed_fit import leave_one_source_out

Row = tuple[str, str, str, float, str]
"""(kind, engine, card class, measured ÷ held-out estimate, source)."""


def held_out_rows() -> tuple[SpeedConstants, list[Row]]:
    """The shipped constants and every held-out ratio with the source it came from."""
    cat, mc, sc, prepared = _setup()
    loso = leave_one_source_out(prepared, sc)
    lone = lone_era_cases(prepared, sc)  # not what the bands describe: past eras, one source
    rows: list[Row] = [
        (CASE_KINDS[pc.kind], pc.engine, pc.card_class, pc.measured / loso[pc.id], pc.source)
        for pc in prepared
        if loso.get(pc.id) and pc.id not in lone
    ]
    memory = tomllib.loads(MEMORY_CASES.read_text(encoding="utf-8"))["case"]
    for case in memory:
        rows += [(*r, case["url"]) for r in vram_ratios(cat, mc, [case])]
    return sc, rows


def _inside(sc: SpeedConstants, row: Row) -> tuple[bool, bool] | None:
    """(inside p10–p90, below p10) of one row against the band `sc` gives it; None when there
    is none (a kind whose every case comes from the left-out source)."""
    kind, engine, cls, ratio, _ = row
    band = sc.band(kind, engine, cls)
    if band is None:
        return None
    return band.p10 <= ratio <= band.p90, ratio < band.p10


def _shares(marks: list[tuple[bool, bool] | None]) -> tuple[float, float] | None:
    """(share inside, share below p10) of the rows that had a band; None when none had."""
    had = [m for m in marks if m is not None]
    if not had:
        return None
    return sum(m[0] for m in had) / len(had), sum(m[1] for m in had) / len(had)


def coverage(sc: SpeedConstants, rows: list[Row]) -> dict[str, dict[str, object]]:
    """Per kind: cases, sources, and (inside, below p10) shipped and nested."""
    shipped: dict[str, list[tuple[bool, bool] | None]] = defaultdict(list)
    nested: dict[str, list[tuple[bool, bool] | None]] = defaultdict(list)
    sources: dict[str, set[str]] = defaultdict(set)
    without: dict[str, SpeedConstants] = {}
    for row in rows:
        source = row[4]
        if source not in without:
            others = [r[:4] for r in rows if r[4] != source]
            without[source] = dataclasses.replace(sc, bands=tuple(error_bands(others)))
        shipped[row[0]].append(_inside(sc, row))
        nested[row[0]].append(_inside(without[source], row))
        sources[row[0]].add(source)
    return {
        kind: {
            "cases": len(shipped[kind]),
            "sources": len(sources[kind]),
            "shipped": _shares(shipped[kind]),
            "nested": _shares(nested[kind]),
        }
        for kind in sorted(shipped)
    }


def _pct(shares: object) -> str:
    if not isinstance(shares, tuple):
        return "— | —"
    return f"{shares[0]:.0%} | {shares[1]:.0%}"


def main() -> None:
    sc, rows = held_out_rows()
    print(
        "| kind | held-out cases | sources | inside p10–p90 | below p10 "
        "| nested inside | nested below p10 |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for kind, c in coverage(sc, rows).items():
        print(
            f"| {kind} | {c['cases']} | {c['sources']} | {_pct(c['shipped'])} | "
            f"{_pct(c['nested'])} |"
        )


if __name__ == "__main__":
    main()
