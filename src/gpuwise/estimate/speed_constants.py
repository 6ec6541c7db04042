"""The speed model's constants from the catalog (data/speed.toml), looked up by engine/backend."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpuwise.catalog import Catalog
from gpuwise.catalog.schema import Gpu
from gpuwise.catalog.schema_speed import (
    EngineEfficiency,
    HostMemory,
    KernelEfficiency,
    LinkModel,
    MatmulFraction,
    TrainEfficiency,
)

ENGINE_FAMILY = {
    "ollama": "llama.cpp",
    "transformers-legacy": "transformers",
    "torchtune": "transformers",
    "unsloth": "transformers",
}
"""Engines that run another engine's kernels (Ollama runs llama.cpp)."""


def backend_of(gpu: Gpu) -> str:
    """The software backend an engine uses on this device (cuda, rocm, metal or other)."""
    if gpu.stack.cuda_cc:
        return "cuda"
    if gpu.stack.rocm_gfx:
        return "rocm"
    if gpu.stack.metal:
        return "metal"
    return "other"


@dataclass(frozen=True)
class SpeedConstants:
    """Achievable-rate fractions and link models."""

    engines: tuple[EngineEfficiency, ...]
    kernels: tuple[KernelEfficiency, ...]
    training: tuple[TrainEfficiency, ...]
    matmul: tuple[MatmulFraction, ...]
    links: tuple[LinkModel, ...]
    host: HostMemory

    @classmethod
    def from_catalog(cls, cat: Catalog) -> SpeedConstants:
        """Collect the speed constants."""

        def kind(name: str) -> tuple[Any, ...]:
            return cat.extra(name)

        return cls(
            engines=kind("engine_efficiency"),
            kernels=kind("kernel_efficiency"),
            training=kind("train_efficiency"),
            matmul=kind("matmul_fraction"),
            links=kind("link_model"),
            host=kind("host_memory")[0],
        )

    def engine(self, engine: str, backend: str) -> EngineEfficiency:
        """The engine on this backend, else the engine on any backend, else the generic entry."""
        engine = ENGINE_FAMILY.get(engine, engine)
        for e_name, b_name in (
            (engine, backend),
            (engine, "any"),
            ("any", backend),
            ("any", "any"),
        ):
            for e in self.engines:
                if e.engine == e_name and e.backend == b_name:
                    return e
        raise LookupError("speed.toml has no generic engine_efficiency entry")

    def kernel(self, kind: str) -> KernelEfficiency:
        """Quantized-kernel factors by weight-format kind (float: 1)."""
        for k in self.kernels:
            if k.kind == kind:
                return k
        return next(k for k in self.kernels if k.kind == "float")

    def _train(self, mode: str, architecture: str) -> TrainEfficiency | None:
        arch = architecture.lower()
        return next(
            (t for t in self.training if t.mode == mode and t.architecture.lower() == arch), None
        )

    def mfu(self, mode: str, gpu: Gpu) -> tuple[float, list[str]]:
        """MFU of a fine-tuning mode on this GPU's architecture, and the sources behind it.

        Measured full fine-tuning MFU differs by architecture (A100 64%, H100 46% in the same
        llm-foundry table); other modes keep their measured ratio to full fine-tuning.
        """
        generic_full = self._train("full", "any")
        full = self._train("full", gpu.architecture) or generic_full
        mode_row = self._train(mode, gpu.architecture) or self._train(mode, "any")
        assert full and generic_full and mode_row, "speed.toml lacks train_efficiency rows"
        if mode == "full" or mode_row.architecture != "any":
            return mode_row.mfu if mode != "full" else full.mfu, [mode_row.source, full.source]
        value = full.mfu * mode_row.mfu / generic_full.mfu
        return value, sorted({full.source, mode_row.source, generic_full.source})

    def matmul_fraction(self, gpu: Gpu) -> float:
        """Measured achievable matmul share for the GPU's architecture (1 when unmeasured)."""
        for m in self.matmul:
            if m.architecture.lower() == gpu.architecture.lower():
                return m.fraction
        return 1.0

    def link(self, gpu: Gpu, gpus: int = 1) -> LinkModel:
        """The collective model of the GPU's fast link (PCIe when none; network across hosts)."""
        if gpus > gpu.max_per_host:
            return next(x for x in self.links if x.id == "network")
        kind = {"nvlink": "nvlink", "nvlink-bridge": "nvlink", "infinity-fabric": "infinity-fabric"}
        wanted = kind.get(gpu.interconnect, "pcie" if gpu.interconnect == "none" else "other")
        return next(x for x in self.links if x.id == wanted)
