"""Lookups of the prefill constants: the tensor-rate share of an engine on an architecture
(with its fall-backs, and an architecture's share moved from another rate) and the tensor path
an engine's GEMMs take for a weight format (SpeedConstants in estimate/speed_constants.py inherits
them).
"""

from __future__ import annotations

import datetime as dt

from gpuwise.catalog.schema_speed import (
    FitSettings,
    KernelPath,
    PrefillEfficiency,
)
from gpuwise.estimate.speed_keys import FIT_SOURCE, _first, _plain, engine_family


class PrefillLookups:
    """Prefill lookups; the tables are SpeedConstants' fields."""

    prefill: tuple[PrefillEfficiency, ...]
    paths: tuple[KernelPath, ...]
    fit: FitSettings

    def prefill_fraction(
        self, engine: str, backend: str, architecture: str, rate: str, moe: bool = False
    ) -> PrefillEfficiency:
        """Tensor-rate share of prefill: for a mixture-of-experts model the engine's own MoE
        share where one was measured on the architecture (`_moe_entry`); else the engine on
        this architecture, else the engine on this architecture at another rate moved to this
        rate (`_arch_effect_elsewhere`), else on this backend, else any engine on the
        architecture, else the engine on any card or at another precision, else any engine."""
        engine = engine_family(engine)
        arch = architecture.lower()
        plain = _plain(arch, " sm_")
        if moe:
            found = self._moe_entry(engine, backend, (arch, plain), rate)
            if found:
                return found
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
            if p.model_kind != "any":
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

    def _moe_entry(
        self, engine: str, backend: str, archs: tuple[str, ...], rate: str
    ) -> PrefillEfficiency | None:
        """The engine's MoE share at this rate on this architecture. Only there: on another
        card the dense chain, which holds the MoE runs too (a server's divided by its engine's
        MoE factor), knows the card better than the engine's MoE runs elsewhere do."""
        for a_name in archs:
            hit = self._prefill_entry(engine, backend, a_name, rate, "moe")
            if hit:
                return hit
        return None

    def _prefill_entry(
        self, engine: str, backend: str, architecture: str, rate: str, kind: str = "any"
    ) -> PrefillEfficiency | None:
        return _first(
            p
            for p in self.prefill
            if p.engine == engine
            and p.backend == backend
            and p.architecture.lower() == architecture
            and p.rate == rate
            and p.model_kind == kind
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
