"""Lookups of the engine-keyed constants: eras, decode shares, step overheads, dequantization
work, launch classes, schedulers and error bands, each falling back from the most specific entry
to a generic one (SpeedConstants in estimate/speed_constants.py inherits them).
"""

from __future__ import annotations

import datetime as dt

from gpuwise.catalog.schema import Gpu
from gpuwise.catalog.schema_speed import (
    DecodeEfficiency,
    DecodeOverhead,
    DequantCost,
    EngineEra,
    EngineScheduler,
    ErrorBand,
    FitSettings,
    StepLaunch,
)
from gpuwise.estimate.speed_keys import FIT_SOURCE, _first, engine_family, memory_chain


class EngineLookups:
    """Engine-keyed lookups; the tables are SpeedConstants' fields."""

    eras: tuple[EngineEra, ...]
    decode: tuple[DecodeEfficiency, ...]
    overheads: tuple[DecodeOverhead, ...]
    dequant: tuple[DequantCost, ...]
    launches: tuple[StepLaunch, ...]
    schedulers: tuple[EngineScheduler, ...]
    bands: tuple[ErrorBand, ...]
    fit: FitSettings

    def engine_key(
        self, engine: str, built: dt.date | None = None, backend: str | None = None
    ) -> str:
        """The engine's fitted group: its era's when `built` predates a documented change (one
        that applies to `backend`, when the era names one)."""
        engine = engine_family(engine)
        older = sorted(
            (
                e
                for e in self.eras
                if e.engine == engine
                and built
                and built < e.before
                and (e.backend is None or e.backend == backend)
            ),
            key=lambda e: e.before,
        )
        return older[0].era if older else engine

    def base_engine(self, key: str) -> str:
        """The engine an era label belongs to (the key itself for an engine)."""
        return next((e.engine for e in self.eras if e.era == key), engine_family(key))

    def _chain(self, key: str) -> list[str]:
        base = self.base_engine(key)
        return [key, base] if base != key else [key]

    def decode_fraction(self, engine: str, memory: str) -> DecodeEfficiency:
        """Bandwidth share of decode: the engine (era, then engine) on this memory (with its
        backend, then the plain kind), else any engine on it, else the engine on any memory,
        else the generic value."""
        names = self._chain(
            engine if engine in {e.era for e in self.eras} else engine_family(engine)
        )
        kinds = memory_chain(memory)
        plain = kinds[-1]
        pairs = [(n, k) for k in kinds for n in names] + [("any", k) for k in kinds]
        pairs += [(n, "any") for n in names] + [("any", "any")]
        for e_name, m_name in pairs:
            hit = _first(d for d in self.decode if d.engine == e_name and d.memory == m_name)
            if hit and m_name != plain and hit.source == FIT_SOURCE:  # a hand-set share of the
                # plain kind (a user's override) beats a fitted one of an SM or backend
                own = _first(
                    d
                    for d in self.decode
                    if d.engine == e_name and d.memory == plain and d.source != FIT_SOURCE
                )
                return own or hit
            if hit:
                return hit
        return DecodeEfficiency(
            bandwidth_fraction=self.fit.decode_bandwidth_fraction, source=self.fit.source
        )

    def overhead(self, engine: str, backend: str) -> DecodeOverhead:
        """Fixed decode time per layer: the engine (era, then engine) on this backend, else on
        any backend, else the engines that launch a step the same way (CUDA graphs or eager,
        `launch_class`), else any engine."""
        names = self._chain(
            engine if engine in {e.era for e in self.eras} else engine_family(engine)
        )
        cls = next((c for n in names if (c := self.launch_class(n))), None)
        pairs = [(n, backend) for n in names] + [(n, "any") for n in names]
        if cls:
            pairs += [(cls, backend), (cls, "any")]
        pairs += [("any", backend), ("any", "any")]
        for e_name, b_name in pairs:
            hit = _first(o for o in self.overheads if o.engine == e_name and o.backend == b_name)
            if hit:
                return hit
        return DecodeOverhead(
            ms_per_layer=self.fit.decode_overhead_ms_per_layer, source=self.fit.source
        )

    def dequant_cost(self, engine: str, kind: str, fmt: str | None = None) -> DequantCost:
        """Vector work per quantized weight: the engine's kernels for this format (`kind:fmt`,
        e.g. gguf:q2_k), else for the kind, else any engine's, else the generic value."""
        names = self._chain(
            engine if engine in {e.era for e in self.eras} else engine_family(engine)
        )
        kinds = [f"{kind}:{fmt}", kind] if fmt else [kind]
        pairs = [(n, k) for k in kinds for n in names] + [("any", k) for k in kinds]
        pairs += [(n, "any") for n in names] + [("any", "any")]
        for e_name, k_name in pairs:
            hit = _first(d for d in self.dequant if d.engine == e_name and d.kind == k_name)
            if hit:
                return hit
        return DequantCost(
            flops_per_weight=self.fit.dequant_flops_per_weight, source=self.fit.source
        )

    def launch_class(self, key: str) -> str | None:
        """ "graphs" when the engine (or era) launches a decode step as captured CUDA graphs,
        "eager" when kernel by kernel, None when the catalog does not say."""
        if key in ("graphs", "eager"):
            return key
        hit = _first(x for x in self.launches if x.engine == key)
        if hit is None:
            return None
        return "graphs" if hit.cuda_graphs else "eager"

    def prefill_graphs(self, key: str) -> bool:
        """Whether the engine (or era) captures prompt steps in CUDA graphs as well."""
        hit = _first(x for x in self.launches if x.engine == key)
        return bool(hit and hit.prefill_graphs)

    def mixed_steps(self, key: str) -> bool:
        """Whether the engine (or era) puts prompt chunks and decode tokens in one step."""
        hit = _first(x for x in self.launches if x.engine == key)
        return bool(hit and hit.mixed_steps)

    def eager_key(self, engine: str) -> str:
        """The group an engine's decode overhead is looked up in when CUDA graphs are off
        (`--enforce-eager`): its era without graphs where the catalog has one, else the class of
        eager engines."""
        hit = _first(x for x in self.launches if x.engine == engine_family(engine))
        return hit.eager_era if hit and hit.eager_era else "eager"

    def scheduler(
        self, engine: str, gpu: Gpu, built: dt.date | None = None
    ) -> EngineScheduler | None:
        """The engine's default scheduler limits on this card for a build of `built` (None:
        current builds); None when only memory limits it."""
        for entry in self.schedulers:
            if entry.engine != engine_family(engine) or gpu.memory_gb < entry.min_memory_gb:
                continue
            if entry.built_before and (built is None or built >= entry.built_before):
                continue
            skip = entry.unless_name_contains
            if skip and skip.lower() in gpu.name.lower():
                continue
            return entry
        return None

    def band(self, kind: str, engine: str, gpu_class: str) -> ErrorBand | None:
        """The error band of a kind of figure: this engine on this card class, else the engine
        on any card, else any engine on the class, else every case of the kind."""
        engine = engine_family(engine)
        for e_name, c_name in ((engine, gpu_class), (engine, "any"), ("any", gpu_class)):
            hit = _first(
                b for b in self.bands if (b.kind, b.engine, b.card_class) == (kind, e_name, c_name)
            )
            if hit:
                return hit
        return _first(
            b for b in self.bands if (b.kind, b.engine, b.card_class) == (kind, "any", "any")
        )
