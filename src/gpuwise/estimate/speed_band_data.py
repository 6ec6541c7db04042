"""The held-out errors the error bands are computed from (speed and memory cases).

Kept apart from estimate/speed_band.py, which the speed model imports: these read the published
cases, which in turn use the speed model.
"""

from __future__ import annotations

from typing import Any

from gpuwise.catalog import Catalog
from gpuwise.catalog.schema_speed import ErrorBand
from gpuwise.estimate.cases import constant_source_urls, norm_url, run_case
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.speed_band import CASE_KINDS, error_bands
from gpuwise.estimate.speed_cases import PreparedCase
from gpuwise.estimate.speed_constants import SpeedConstants, engine_family

_MEMORY_ENGINES = {"peft": "transformers", "other": "transformers"}


def speed_ratios(
    prepared: list[PreparedCase], loso: dict[str, float], sc: SpeedConstants | None = None
) -> list[tuple[str, str, str, float]]:
    """(kind, engine, card class, measured ÷ held-out estimate) of every speed case, but those
    of a past engine era that only their own source measured (`lone_era_cases`)."""
    lone = lone_era_cases(prepared, sc) if sc is not None else set()
    return [
        (CASE_KINDS[pc.kind], pc.engine, pc.card_class, pc.measured / loso[pc.id])
        for pc in prepared
        if loso.get(pc.id) and pc.id not in lone
    ]


def lone_era_cases(prepared: list[PreparedCase], sc: SpeedConstants) -> set[str]:
    """Cases of a past engine era (catalog engine_era: vLLM before CUDA graphs, llama.cpp
    before its graphs) that no other source measured. Held out, such a case is predicted with
    no run of its era at all, so its error tells that the era is missing, which no plan meets:
    plans run today's builds, of which many sources were measured. Kept in the fit and in the
    accuracy report; left out of the error bands (blind w57-05: vLLM 0.2's multi-GPU Llama-2
    runs of October 2023, one source, set the p10 of every vLLM datacenter decode at 0.28)."""
    by_era: dict[tuple[str, str], set[str]] = {}
    era_of: dict[str, tuple[str, str]] = {}
    for pc in prepared:
        key = sc.engine_key(pc.engine, pc.inputs.built, pc.backend)
        if key == pc.engine:
            continue  # today's engine
        era_of[pc.id] = (pc.kind, key)
        by_era.setdefault((pc.kind, key), set()).add(pc.source)
    return {cid for cid, era in era_of.items() if len(by_era[era]) < 2}


def vram_ratios(
    cat: Catalog, mc: MemoryConstants, cases: list[dict[str, Any]]
) -> list[tuple[str, str, str, float]]:
    """("vram", engine, "any", measured ÷ estimated) of every memory case whose source set no
    memory constant (the held-out ones)."""
    constants = constant_source_urls(cat)
    out = []
    for c in cases:
        if "excluded" in c or any(norm_url(c["url"]).startswith(u) for u in constants):
            continue
        r = run_case(cat, mc, c)
        engine = engine_family(_MEMORY_ENGINES.get(c["engine"], c["engine"]))
        out.append(("vram", engine, "any", r.measured_gb / r.estimated_gb))
    return out


def bands(
    cat: Catalog,
    mc: MemoryConstants,
    prepared: list[PreparedCase],
    loso: dict[str, float],
    memory_cases: list[dict[str, Any]],
) -> list[ErrorBand]:
    """Every error band from the speed cases' held-out estimates and the memory cases."""
    sc = SpeedConstants.from_catalog(cat)
    return error_bands(speed_ratios(prepared, loso, sc) + vram_ratios(cat, mc, memory_cases))
