"""Typed constants of the speed model: achievable fractions of datasheet peaks, per engine.

Datasheet peaks overstate what LLM kernels reach; these fractions turn peaks into achievable
rates. Each one is data with a source (a published benchmark or MFU table), and a user can
override it with a measured number (docs/catalog-format.md).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, NonNegativeFloat, PositiveFloat

from gpuwise.catalog.schema import Sourced

Backend = Literal["cuda", "rocm", "metal", "any"]


class EngineEfficiency(Sourced):
    """How well one engine on one backend uses a GPU while serving."""

    engine: str
    backend: Backend = "any"
    decode_bandwidth_fraction: float = Field(gt=0, le=1)
    decode_overhead_ms_per_layer: NonNegativeFloat = 0.0
    prefill_flops_fraction: float = Field(gt=0, le=2)
    prefill_tflops_cap: PositiveFloat | None = None
    calibrated_on: list[str] = Field(default_factory=list)


class KernelEfficiency(Sourced):
    """Quantized kernels reach a smaller share of bandwidth/compute than 16-bit ones."""

    kind: str
    decode_factor: float = Field(gt=0, le=1.2)
    prefill_factor: float = Field(gt=0, le=1.2)
    calibrated_on: list[str] = Field(default_factory=list)


class TrainEfficiency(Sourced):
    """Model FLOPs utilisation (of dense BF16 peak) that fine-tuning typically reaches."""

    mode: Literal["full", "lora", "qlora", "freeze"]
    architecture: str = "any"
    mfu: float = Field(gt=0, le=1)
    calibrated_on: list[str] = Field(default_factory=list)


class MatmulFraction(Sourced):
    """Measured maximum achievable matmul throughput as a fraction of the dense peak."""

    architecture: str
    fraction: float = Field(gt=0, le=1)


class LinkModel(Sourced):
    """Collective-communication behaviour of an interconnect class."""

    id: Literal["nvlink", "pcie", "infinity-fabric", "other", "network"]
    bus_bandwidth_fraction: float = Field(gt=0, le=1)
    allreduce_latency_us: NonNegativeFloat
    overlap_fraction: float = Field(ge=0, le=1)


class HostMemory(Sourced):
    """System-memory bandwidth used when layers are offloaded to the CPU."""

    cpu_memory_bandwidth_gbps: PositiveFloat
    pcie_gbps_per_gen_x16: dict[str, PositiveFloat]
    network_gbps: dict[str, PositiveFloat]


SPEED_KINDS: dict[str, type[BaseModel]] = {
    "engine_efficiency": EngineEfficiency,
    "kernel_efficiency": KernelEfficiency,
    "train_efficiency": TrainEfficiency,
    "matmul_fraction": MatmulFraction,
    "link_model": LinkModel,
    "host_memory": HostMemory,
}
