"""The speed model's constants from the catalog (data/speed.toml, data/speed_fitted.toml).

Every lookup falls back from the most specific entry to a generic one: an engine's own value
for this kind of card, else every engine's value for it, else the generic entry. Each answer
comes with the sources behind it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from gpuwise.catalog import Catalog
from gpuwise.catalog.schema import Gpu
from gpuwise.catalog.schema_bench import MeasuredRate
from gpuwise.catalog.schema_speed import (
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
    LinkModel,
    MatmulFraction,
    PowerScaling,
    PrefillEfficiency,
    StepLaunch,
    TrainEfficiency,
)
from gpuwise.estimate.power import power_derate, power_references

ENGINE_FAMILY = {
    "ollama": "llama.cpp",
    "transformers-legacy": "transformers",
    "torchtune": "transformers",
    "unsloth": "transformers",
}
"""Engines that run another engine's kernels (Ollama runs llama.cpp)."""

T = TypeVar("T")


def engine_family(engine: str) -> str:
    """The engine whose kernels run (Ollama's are llama.cpp's)."""
    return ENGINE_FAMILY.get(engine, engine)


def backend_of(gpu: Gpu) -> str:
    """The software backend an engine uses on this device (cuda, rocm, metal or other)."""
    if gpu.stack.cuda_cc:
        return "cuda"
    if gpu.stack.rocm_gfx:
        return "rocm"
    if gpu.stack.metal:
        return "metal"
    return "other"


def memory_kind(gpu: Gpu) -> str:
    """hbm, gddr or unified: decode kernels reach different shares of each kind's bandwidth."""
    if gpu.unified_memory:
        return "unified"
    return "hbm" if gpu.memory_type.upper().startswith("HBM") else "gddr"


FIT_SOURCE = "spd-fit"
"""The source of the shares benchmarks/calibrate_speed.py fits (data/speed_fitted.toml)."""


def _plain(key: str, sep: str) -> str:
    """A qualified architecture key's plain form: "ada lovelace sm_89" → "ada lovelace"."""
    return key.rsplit(sep, 1)[0] if sep in key else key


def kernel_arch(gpu: Gpu) -> str:
    """The architecture a prefill share belongs to, with the CUDA compute capability where the
    catalog has it: kernels are compiled and tuned per SM version, and one architecture name
    covers different chips — Ampere's GA100 (A100, A30; sm_80) and GA10x (RTX 3090, A10; sm_86),
    Blackwell's B200 (sm_100) and RTX 50/PRO (sm_120) reach different shares of their peaks."""
    cc = gpu.stack.cuda_cc if gpu.stack else None
    return f"{gpu.architecture} sm_{cc.replace('.', '')}" if cc else gpu.architecture


def decode_memory_key(gpu: Gpu, backend: str) -> str:
    """The memory key of a decode share: the memory kind, qualified by the SM version on CUDA
    (a T4's sm_75 and an A100's sm_80 kernels reach other shares of their bandwidth than an RTX
    4090's) or by the backend when the kernels are not CUDA's or Metal's (llama.cpp's HIP kernels
    on an MI300X are not its CUDA kernels on an H100, though both read HBM). Data-centre GDDR
    cards (T4, A10, L4, L40S…) are `gddr-ecc`: they ship with ECC on, which spends part of the
    GDDR's capacity and bandwidth on check bits (nvidia-smi --help-query-gpu, quoted in
    netdata/netdata#15755: "if ECC is enabled the total available memory is decreased by several
    percent, due to the requisite parity bits"; InternLM/lmdeploy#159: NVIDIA turns it on by
    default), while GeForce and workstation cards run without it by default. Looked up, and
    fitted, with a fall-back to (pooling towards) each shorter key (`memory_chain`)."""
    memory = memory_kind(gpu)
    cc = gpu.stack.cuda_cc if gpu.stack else None
    if backend == "cuda" and cc:
        ecc = memory == "gddr" and gpu.gpu_class == "datacenter"
        return f"{'gddr-ecc' if ecc else memory}-sm{cc.replace('.', '')}"
    if memory == "unified" or backend in ("cuda", "metal", "any"):
        return memory
    return f"{memory}-{backend}"


def memory_chain(key: str) -> list[str]:
    """A memory key and each shorter key it falls back to: "gddr-ecc-sm89" → "gddr-ecc" →
    "gddr"; "hbm-rocm" → "hbm"."""
    chain = [key]
    while "-" in chain[-1]:
        chain.append(chain[-1].rsplit("-", 1)[0])
    return chain


def card_class(gpu: Gpu) -> str:
    """The class the accuracy tables report by: consumer, workstation, datacenter, apple, amd."""
    if gpu.vendor == "apple":
        return "apple"
    if gpu.vendor == "amd":
        return "amd"
    if gpu.vendor != "nvidia":
        return "other"
    return gpu.gpu_class


def _first(candidates: Iterable[T]) -> T | None:
    return next(iter(candidates), None)


@dataclass(frozen=True)
class SpeedConstants:
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
    bands: tuple[ErrorBand, ...] = ()
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
            bands=kind("error_band"),
        )
        if power is None:
            return sc
        cards = ((g, kernel_arch(g), sc.half_accumulate_factor(g)[0]) for g in cat.gpus)
        return replace(sc, power_refs=power_references(cards, power))

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

    def prefill_fraction(
        self, engine: str, backend: str, architecture: str, rate: str
    ) -> PrefillEfficiency:
        """Tensor-rate share of prefill: the engine on this architecture, else the engine on
        this architecture at another rate moved to this rate (`_arch_effect_elsewhere`), else
        on this backend, else any engine on the architecture, else the engine on any card or at
        another precision, else any engine."""
        engine = engine_family(engine)
        arch = architecture.lower()
        plain = _plain(arch, " sm_")
        if not any(self._prefill_entry(engine, backend, k, rate) for k in (arch, plain)):
            for key in (arch, plain):  # measured at another rate: move that to this one
                moved = self._arch_effect_elsewhere(engine, backend, key, rate)
                if moved:
                    return moved
        for e_name, b_name, a_name, r_name in (
            (engine, backend, arch, rate),
            (engine, backend, plain, rate),
            (engine, backend, "any", rate),
            ("any", backend, arch, rate),
            ("any", backend, plain, rate),
            (engine, "any", "any", rate),
            (engine, backend, "any", "any"),  # the engine's GEMMs at another precision
            (engine, "any", "any", "any"),
            ("any", backend, "any", rate),
            ("any", "any", "any", rate),
            ("any", "any", "any", "any"),
        ):
            hit = self._prefill_entry(e_name, b_name, a_name, r_name)
            if hit and a_name != plain and hit.source == FIT_SOURCE:  # a hand-set share of the
                # architecture (a user's override) beats a fitted one of an SM version
                own = self._prefill_entry(e_name, b_name, plain, r_name)
                return own if own and own.source != FIT_SOURCE else hit
            if hit:
                return hit
        return PrefillEfficiency(fraction=self.fit.prefill_fraction, source=self.fit.source)

    def _arch_effect_elsewhere(
        self, engine: str, backend: str, architecture: str, rate: str
    ) -> PrefillEfficiency | None:
        """The architecture's share at another rate, moved to this one by the engine's ratio
        between the two rates over all cards.

        An SM version's kernels reach about the same fraction of the engine's average at every
        rate: in the fit of 2026-12-03, llama.cpp's old FP16-accumulate share ÷ its INT8 MMQ
        share is 1.83 on sm_89, 1.98 on sm_86, 2.08 on sm_80 and 2.09 on sm_90. So a card
        measured only at one rate (the H100 with current INT8 builds) says more about its
        other rate than every card's average does. The most-measured other rate is used.
        """
        base = self._prefill_entry(engine, backend, "any", rate)
        if base is None or architecture == "any":
            return None
        best: tuple[int, float, str] | None = None
        for p in self.prefill:
            if (p.engine, p.backend, p.architecture.lower()) != (engine, backend, architecture):
                continue
            if p.rate in (rate, "any"):
                continue
            other = self._prefill_entry(engine, backend, "any", p.rate)
            if other is None:
                continue
            n = len(p.calibrated_on)
            if best is None or n > best[0]:
                best = (n, p.fraction * base.fraction / other.fraction, p.architecture)
        if best is None:
            return None
        return PrefillEfficiency(
            engine=engine,
            backend=backend,
            architecture=best[2],
            rate=rate,
            fraction=min(1.0, best[1]),
            source=FIT_SOURCE,
        )

    def _prefill_entry(
        self, engine: str, backend: str, architecture: str, rate: str
    ) -> PrefillEfficiency | None:
        return _first(
            p
            for p in self.prefill
            if p.engine == engine
            and p.backend == backend
            and p.architecture.lower() == architecture
            and p.rate == rate
        )

    def kernel_rate(
        self, engine: str, kind: str, built: dt.date | None = None, backend: str = "any"
    ) -> KernelPath:
        """The tensor rate an engine's prefill GEMMs use for a weight-format kind.

        Current builds unless `built` (a measurement's build date) predates an entry's `before`;
        an entry for the backend wins over one for any backend.
        """
        engine = engine_family(engine)
        for e_name, k_name in ((engine, kind), ("any", kind)):
            entries = [
                p
                for p in self.paths
                if p.engine == e_name and p.kind == k_name and p.backend in (backend, "any")
            ]
            older = sorted(
                (p for p in entries if p.before and built and built < p.before),
                key=lambda p: (p.backend == "any", p.before or dt.date.max),
            )
            current = sorted(
                (p for p in entries if p.before is None), key=lambda p: p.backend == "any"
            )
            hit = _first(older) or _first(current)
            if hit:
                return hit
        return KernelPath(kind=kind, rate="bf16", source=self.fit.source)

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

    def eager_key(self, engine: str) -> str:
        """The group an engine's decode overhead is looked up in when CUDA graphs are off
        (`--enforce-eager`): its era without graphs where the catalog has one, else the class of
        eager engines."""
        hit = _first(x for x in self.launches if x.engine == engine_family(engine))
        return hit.eager_era if hit and hit.eager_era else "eager"

    def scheduler(self, engine: str, gpu: Gpu) -> EngineScheduler | None:
        """The engine's default scheduler limits on this card (None: only memory limits it)."""
        for entry in self.schedulers:
            if entry.engine != engine_family(engine) or gpu.memory_gb < entry.min_memory_gb:
                continue
            skip = entry.unless_name_contains
            if skip and skip.lower() in gpu.name.lower():
                continue
            return entry
        return None

    def band(self, kind: str, engine: str, gpu_class: str) -> ErrorBand | None:
        """The error band of a kind of figure: this engine on this card class, else the engine
        on any card, else any engine on the class, else every case of the kind."""
        key = ("band", kind, engine, gpu_class)
        return self._remember(key, lambda: self._band(kind, engine, gpu_class))

    def _band(self, kind: str, engine: str, gpu_class: str) -> ErrorBand | None:
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
        precision; else the anchor."""
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
            hit = _first(
                t
                for t in self.training
                if (t.precision, t.model_kind, t.mode, t.architecture.lower())
                == (p_name, k_name, m_name, a_name)
            )
            if hit:
                return hit
        return TrainEfficiency(
            mode="any", matmul_utilisation=self.fit.train_matmul_utilisation, source=self.fit.source
        )

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
        return DecodeEfficiency(
            engine=hit.engine, bandwidth_fraction=hit.fraction, source=hit.source
        )

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
