"""Error bands describe today's engines: a past era measured by one source only is left out
(speed_band_data.lone_era_cases; blind w57-05)."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace
from typing import Any

from gpuwise.catalog import load_catalog
from gpuwise.estimate.speed_band_data import lone_era_cases, speed_ratios
from gpuwise.estimate.speed_constants import SpeedConstants


def _case(cid: str, source: str, built: dt.date | None, kind: str = "decode") -> Any:
    inputs = SimpleNamespace(built=built)
    return SimpleNamespace(
        id=cid, source=source, kind=kind, engine="vllm", backend=None, card_class="datacenter",
        measured=10.0, inputs=inputs,
    )  # fmt: skip


def test_a_past_era_measured_by_one_source_leaves_the_bands() -> None:
    sc = SpeedConstants.from_catalog(load_catalog())
    old = dt.date(2023, 10, 6)  # vLLM before CUDA graphs (catalog engine_era vllm-eager)
    cases = [
        _case("a", "perfbench", old),
        _case("b", "perfbench", old),
        _case("c", "today-1", None),
        _case("d", "today-2", dt.date(2026, 6, 1)),
    ]
    assert lone_era_cases(cases, sc) == {"a", "b"}
    loso = {c.id: 20.0 for c in cases}
    assert len(speed_ratios(cases, loso, sc)) == 2


def test_a_past_era_two_sources_measured_stays() -> None:
    sc = SpeedConstants.from_catalog(load_catalog())
    old = dt.date(2023, 10, 6)
    cases = [_case("a", "one", old), _case("b", "two", old)]
    assert lone_era_cases(cases, sc) == set()
