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
from gpuwise.estimate.speed_constants import engine_family

_MEMORY_ENGINES = {"peft": "transformers", "other": "transformers"}


def speed_ratios(
    prepared: list[PreparedCase], loso: dict[str, float]
) -> list[tuple[str, str, str, float]]:
    """(kind, engine, card class, measured ÷ held-out estimate) of every speed case."""
    return [
        (CASE_KINDS[pc.kind], pc.engine, pc.card_class, pc.measured / loso[pc.id])
        for pc in prepared
        if loso.get(pc.id)
    ]


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
    return error_bands(speed_ratios(prepared, loso) + vram_ratios(cat, mc, memory_cases))
