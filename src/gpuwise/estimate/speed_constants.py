"""The speed model's constants from the catalog (data/speed.toml, data/speed_fitted.toml).

Every lookup falls back from the most specific entry to a generic one: an engine's own value
for this kind of card, else every engine's value for it, else the generic entry. Each answer
comes with the sources behind it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from gpuwise.catalog import Catalog
from gpuwise.catalog.schema import Gpu
from gpuwise.catalog.schema_bench import MeasuredRate
from gpuwise.catalog.schema_speed import (
    ArchitectureGeneration,
    DecodeEfficiency,
    DecodeOverhead,
    DequantCost,
    EngineEra,
    EngineScheduler,
    ErrorBand,
    FitSettings,
    HalfAccumulate,
    HostMemory,
    KernelPath,
    KvReadCost,
    LinkModel,
    MatmulFraction,
    PowerScaling,
    PrefillEfficiency,
    StepLaunch,
    TrainEfficiency,
    TrainExecution,
)
from gpuwise.estimate.power import power_derate, power_references
from gpuwise.estimate.speed_keys import ENGINE_FAMILY as ENGINE_FAMILY
from gpuwise.estimate.speed_keys import FIT_SOURCE as FIT_SOURCE
from gpuwise.estimate.speed_keys import _first as _first
from gpuwise.estimate.speed_keys import _plain as _plain
from gpuwise.estimate.speed_keys import backend_of as backend_of
from gpuwise.estimate.speed_keys import card_class as card_class
from gpuwise.estimate.speed_keys import decode_memory_key as decode_memory_key
from gpuwise.estimate.speed_keys import engine_family as engine_family
from gpuwise.estimate.speed_keys import kernel_arch as kernel_arch
from gpuwise.estimate.speed_keys import memory_chain as memory_chain
from gpuwise.estimate.speed_keys import memory_kind as memory_kind
from gpuwise.estimate.speed_lookups import EngineLookups
from gpuwise.estimate.speed_lookups_prefill import PrefillLookups

T = TypeVar("T")


@dataclass(frozen=True)
class SpeedConstants(EngineLookups, PrefillLookups):
    """Achievable-rate fractions, kernel paths and link models."""

    decode: tuple[DecodeEfficiency, ...]
    overheads: tuple[DecodeOverhead, ...]
    dequant: tuple[DequantCost, ...]
    prefill: tuple[PrefillEfficiency, ...]
    paths: tuple[KernelPath, ...]
    eras: tuple[EngineEra, ...]
    half_accumulate: tuple[HalfAccumulate, ...]
    training: tuple[TrainEfficiency, ...]
    matmul: tuple[MatmulFraction, ...]
    links: tuple[LinkModel, ...]
    host: HostMemory
    fit: FitSettings
    measured: tuple[MeasuredRate, ...] = ()
    """Rates measured on this machine (`gpuwise calibrate`); they win for their GPU."""
    power: PowerScaling | None = None
    power_refs: dict[str, float] = field(default_factory=dict)
    """W per dense tensor TFLOP of each SM version's full-power part (estimate/power.py)."""
    launches: tuple[StepLaunch, ...] = ()
    schedulers: tuple[EngineScheduler, ...] = ()
    kv_reads: tuple[KvReadCost, ...] = ()
    bands: tuple[ErrorBand, ...] = ()
    executions: tuple[TrainExecution, ...] = ()
    generations: tuple[ArchitectureGeneration, ...] = ()
    """Which architecture each newer one follows (the training share's fall-back)."""
    _memo: dict[Hashable, Any] = field(default_factory=dict, init=False, compare=False, repr=False)
    """Answers to lookups already made (the planner asks the same ones for every candidate);
    not an init field, so `replace` (fitted constants, power references) starts a new one."""

    def _remember(self, key: Hashable, build: Callable[[], T]) -> T:
        if key not in self._memo:
            self._memo[key] = build()
        return self._memo[key]  # type: ignore[no-any-return]

    def per_card(self, name: Hashable, gpu: Gpu, build: Callable[[], T]) -> T:
        """A figure about one card derived from these constants alone, remembered by the card
        object's identity (the memo keeps the card alive, so its id cannot be reused)."""
        key = (name, id(gpu))
        hit = self._memo.get(key)
        if hit is None or hit[0] is not gpu:
            hit = (gpu, build())
            self._memo[key] = hit
        return hit[1]

    def band(self, kind: str, engine: str, gpu_class: str) -> ErrorBand | None:
        """The error band of a kind of figure (speed_lookups.EngineLookups.band), remembered."""
        key = ("band", kind, engine, gpu_class)
        lookup = super().band
        return self._remember(key, lambda: lookup(kind, engine, gpu_class))

    def prefill_fraction(
        self, engine: str, backend: str, architecture: str, rate: str, moe: bool = False
    ) -> PrefillEfficiency:
        """The tensor-rate share of prefill (speed_lookups_prefill.PrefillLookups), remembered:
        the planner asks the same few for thousands of configurations."""
        key = ("prefill_fraction", engine, backend, architecture, rate, moe)
        lookup = super().prefill_fraction
        return self._remember(key, lambda: lookup(engine, backend, architecture, rate, moe))

    @classmethod
    def from_catalog(cls, cat: Catalog) -> SpeedConstants:
        """Collect the speed constants."""

        def kind(name: str) -> tuple[Any, ...]:
            return cat.extra(name)

        power = _first(kind("power_scaling"))
        sc = cls(
            decode=kind("decode_efficiency"),
            overheads=kind("decode_overhead"),
            dequant=kind("dequant_cost"),
            prefill=kind("prefill_efficiency"),
            paths=kind("kernel_path"),
            eras=kind("engine_era"),
            half_accumulate=kind("half_accumulate"),
            training=kind("train_efficiency"),
            matmul=kind("matmul_fraction"),
            links=kind("link_model"),
            host=kind("host_memory")[0],
            fit=kind("fit_settings")[0],
            measured=kind("measured_rate"),
            power=power,
            launches=kind("step_launch"),
            schedulers=kind("engine_scheduler"),
            kv_reads=kind("kv_read_cost"),
            bands=kind("error_band"),
            executions=kind("train_execution"),
            generations=kind("architecture_generation"),
        )
        if power is None:
            return sc
        cards = ((g, kernel_arch(g), sc.half_accumulate_factor(g)[0]) for g in cat.gpus)
        return replace(sc, power_refs=power_references(cards, power))

    def kv_read_factor(
        self, engine: str, backend: str, kv_dtype: str, built: dt.date | None = None
    ) -> tuple[float, list[str]]:
        """How many times its bytes a decode step's KV read costs for this engine build and
        cache format (1: as its bytes), and the sources behind it."""
        for entry in self.kv_reads:
            if (entry.engine, entry.backend, entry.kv_dtype) != (
                engine_family(engine),
                backend,
                kv_dtype,
            ):
                continue
            if entry.built_before and (built is None or built >= entry.built_before):
                continue
            return entry.factor, entry.source_ids()
        return 1.0, []

    def power_derate(self, gpu: Gpu) -> float:
        """The share of its datasheet tensor peak the card sustains (power.py; 1 when unknown)."""
        return self.per_card("derate", gpu, lambda: self._power_derate(gpu))

    def _power_derate(self, gpu: Gpu) -> float:
        half, _ = self.half_accumulate_factor(gpu)
        return power_derate(gpu, kernel_arch(gpu), half, self.power_refs, self.power)

    def power_source_ids(self, gpu: Gpu) -> list[str]:
        """The sources behind the card's derate, when it has one (to cite beside the rate)."""
        if self.power is None or self.power_derate(gpu) >= 1.0:
            return []
        return self.power.source_ids()

    def with_fitted(
        self,
        decode: tuple[DecodeEfficiency, ...],
        overheads: tuple[DecodeOverhead, ...],
        dequant: tuple[DequantCost, ...],
        prefill: tuple[PrefillEfficiency, ...],
        training: tuple[TrainEfficiency, ...],
    ) -> SpeedConstants:
        """The same constants with the fitted groups replaced (calibration, cross-validation)."""
        return replace(
            self,
            decode=decode,
            overheads=overheads,
            dequant=dequant,
            prefill=prefill,
            training=training,
        )

    def half_accumulate_factor(self, gpu: Gpu) -> tuple[float, str | None]:
        """How much faster FP16-accumulate GEMMs run than the catalog's 16-bit rate (GeForce: 2)."""
        for h in self.half_accumulate:
            if (
                h.vendor == gpu.vendor
                and h.gpu_class == gpu.gpu_class
                and gpu.architecture in h.architectures
            ):
                return h.factor, h.source
        return 1.0, None

    def train_utilisation(
        self, mode: str, architecture: str, precision: str = "16-bit", model_kind: str = "dense"
    ) -> TrainEfficiency:
        """Share of achievable matmul a training mode reaches at a precision class ("16-bit" or
        "fp8") for a dense or MoE model: the most specific entry first (precision, model kind,
        mode, architecture), dropping the architecture, the mode, the model kind, then the
        precision; else the anchor. A pooled share is capped at the share of the architecture
        the card's follows (catalog `architecture_generation`): each generation raised its
        tensor rate faster than the memory bandwidth the step's other work runs at, so a newer
        one reaches no more of its peak than the one before (Hopper 0.60 against Ampere 0.76 in
        full 16-bit training), and the pooled share, mostly older cards, credited a B200 with
        more (blind w64-04: timed 2.58x an H100 where NVIDIA measures 2.1x)."""
        key = ("train", mode, architecture, precision, model_kind)
        return self._remember(
            key, lambda: self._train_utilisation(mode, architecture, precision, model_kind)
        )

    def _train_utilisation(
        self, mode: str, architecture: str, precision: str, model_kind: str
    ) -> TrainEfficiency:
        arch = architecture.lower()
        keys = [
            (precision, model_kind, mode, arch),
            (precision, model_kind, mode, "any"),
            (precision, model_kind, "any", "any"),
            (precision, "any", "any", "any"),
            ("any", "any", mode, arch),
            ("any", "any", mode, "any"),
            ("any", "any", "any", arch),
            ("any", "any", "any", "any"),
        ]
        for p_name, k_name, m_name, a_name in keys:
            hit = self._train_entry(p_name, k_name, m_name, a_name)
            if hit:
                return self._no_more_than_before(hit, arch, (precision, model_kind, mode))
        return TrainEfficiency(
            mode="any", matmul_utilisation=self.fit.train_matmul_utilisation, source=self.fit.source
        )

    def _train_entry(self, *key: str) -> TrainEfficiency | None:
        return _first(
            t
            for t in self.training
            if (t.precision, t.model_kind, t.mode, t.architecture.lower()) == key
        )

    def _no_more_than_before(
        self, hit: TrainEfficiency, arch: str, key: tuple[str, str, str]
    ) -> TrainEfficiency:
        """A pooled share (not the architecture's own) capped at the share of the architecture
        it follows at the same precision, model kind and mode (`architecture_generation`)."""
        if hit.architecture.lower() == arch:
            return hit
        before = [
            e
            for g in self.generations
            if g.architecture.lower() == arch
            and (e := self._train_entry(*key, g.follows.lower())) is not None
        ]
        lower = min(before, key=lambda e: e.matmul_utilisation, default=None)
        return lower if lower and lower.matmul_utilisation < hit.matmul_utilisation else hit

    def measured_for(self, gpu_id: str, metric: str, engine: str = "any") -> MeasuredRate | None:
        """A rate `gpuwise calibrate` measured for this GPU (and exactly this engine)."""
        hits = (m for m in self.measured if m.gpu == gpu_id and m.metric == metric)
        return _first(m for m in hits if m.engine == engine)

    def decode_on(self, gpu: Gpu, engine: str, dec: DecodeEfficiency) -> DecodeEfficiency:
        """The decode share on this very GPU: this machine's measurement of the engine replaces
        the catalog's; the card's measured streaming share (any engine) caps it, since no engine
        reads weights faster than the card streams them."""
        own = self.measured_for(gpu.id, "decode_bandwidth", engine_family(engine))
        cap = self.measured_for(gpu.id, "decode_bandwidth")
        hit = own or (cap if cap and cap.fraction < dec.bandwidth_fraction else None)
        if hit is None:
            return dec
        experts = dec.expert_bandwidth_fraction
        return DecodeEfficiency(
            engine=hit.engine,
            bandwidth_fraction=hit.fraction,
            expert_bandwidth_fraction=min(experts, hit.fraction) if experts else None,
            source=hit.source,
        )

    def train_execution(self, execution: str) -> TrainExecution | None:
        """The speed-up entry of an execution mode (None for eager or an unknown mode: ×1)."""
        return _first(e for e in self.executions if e.id == execution)

    def matmul_entry(self, gpu: Gpu) -> MatmulFraction | None:
        """The achievable-matmul share measured on this GPU (`gpuwise calibrate`), else the
        measured share of the GPU's architecture, if one was measured.

        Shares are of the peak the card sustains (its power derate × the datasheet's): the
        architecture entries were measured on full-power parts; a share measured on this card
        includes its own derate, which is taken out so it is not counted twice.
        """
        return self.per_card("matmul", gpu, lambda: self._matmul_entry(gpu))

    def _matmul_entry(self, gpu: Gpu) -> MatmulFraction | None:
        own = self.measured_for(gpu.id, "matmul")
        if own is not None:
            sustained = min(1.0, own.fraction / self.power_derate(gpu))
            return MatmulFraction(
                architecture=gpu.architecture or "any", fraction=sustained, source=own.source
            )
        arch = gpu.architecture.lower()
        return _first(m for m in self.matmul if m.architecture.lower() == arch)

    def matmul_fraction(self, gpu: Gpu) -> float:
        """Measured achievable matmul share for the GPU's architecture (1 when unmeasured)."""
        entry = self.matmul_entry(gpu)
        return entry.fraction if entry else 1.0

    def link(self, gpu: Gpu, gpus: int = 1) -> LinkModel:
        """The collective model of the GPU's fast link (PCIe when none; network across hosts)."""
        if gpus > gpu.max_per_host:
            return next(x for x in self.links if x.id == "network")
        kind = {"nvlink": "nvlink", "nvlink-bridge": "nvlink", "infinity-fabric": "infinity-fabric"}
        wanted = kind.get(gpu.interconnect, "pcie" if gpu.interconnect == "none" else "other")
        return next(x for x in self.links if x.id == wanted)
