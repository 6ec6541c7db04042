"""Typed compatibility tables for the doctor (CUDA ↔ driver, PyTorch ↔ CUDA/ROCm/Python, …).

Registered into the catalog through COMPAT_KINDS (see schema_extra.EXTRA_KINDS). Versions are
kept as the strings the vendors print ("570.26", "12.8", "3.13"); the doctor compares them as
tuples of integers.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from gpuwise.catalog.schema import Sourced

_VERSION = r"^\d+(\.\d+)*$"


class CudaDriverMin(Sourced):
    """One row of "CUDA Toolkit and Corresponding Driver Versions" (CUDA release notes, Table 3).

    The driver that shipped with a toolkit release; with minor-version compatibility an older
    driver of the same major family may still run it (see CudaMvc).
    """

    cuda: str = Field(pattern=r"^\d+\.\d+$")
    release: str  # "GA", "Update 1", …
    linux_min_driver: str = Field(pattern=_VERSION)
    windows_min_driver: str | None = Field(default=None, pattern=_VERSION)


class CudaMvc(Sourced):
    """Minimum driver for CUDA minor-version compatibility of a whole major family (Table 2)."""

    cuda_major: int = Field(ge=9, le=20)
    min_driver: str = Field(pattern=_VERSION)
    max_driver_exclusive: str | None = Field(default=None, pattern=_VERSION)


class TorchRelease(Sourced):
    """One row of PyTorch's release compatibility matrix (RELEASE.md)."""

    version: str = Field(pattern=r"^\d+\.\d+$")
    python_min: str = Field(pattern=_VERSION)
    python_max: str = Field(pattern=_VERSION)
    cuda_stable: list[str] = Field(default_factory=list)
    cuda_experimental: list[str] = Field(default_factory=list)
    rocm: str = ""


class TorchWheelArch(Sourced):
    """The GPU architectures compiled into PyTorch's x86_64 Linux wheels for one CUDA version."""

    cuda: str = Field(pattern=r"^\d+\.\d+$")
    archs: list[str]  # compute capabilities with SASS in the wheel, e.g. "8.6"
    ptx: str | None = None  # the architecture whose PTX is also shipped (JIT for newer GPUs)
    torch_versions: str = ""  # the releases this list applies to, as the source states


class OllamaGpuRequirement(Sourced):
    """What Ollama's hardware-support page requires of a GPU vendor's driver and device."""

    vendor: Literal["nvidia", "amd"]
    min_compute_capability: str = Field(default="", pattern=r"^(\d+\.\d+)?$")
    min_driver: str = Field(pattern=_VERSION)
    legacy_max_compute_capability: str = Field(default="", pattern=r"^(\d+\.\d+)?$")
    legacy_min_driver: str = Field(default="", pattern=r"^(\d+(\.\d+)*)?$")


COMPAT_KINDS: dict[str, type[BaseModel]] = {
    "cuda_driver": CudaDriverMin,
    "cuda_mvc": CudaMvc,
    "torch_release": TorchRelease,
    "torch_wheel_arch": TorchWheelArch,
    "ollama_gpu_req": OllamaGpuRequirement,
}
