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
    """The GPU architectures compiled into PyTorch's x86_64 Linux wheels for one CUDA version.

    The list changed between releases for the same CUDA version (cu128 lost Volta in 2.11), so a
    row applies to the releases torch_min..torch_max (inclusive, "X.Y"; empty = open-ended).
    """

    cuda: str = Field(pattern=r"^\d+\.\d+$")
    archs: list[str]  # compute capabilities with SASS in the wheel, e.g. "8.6"
    ptx: str | None = None  # the architecture whose PTX is also shipped (JIT for newer GPUs)
    torch_min: str = Field(default="", pattern=r"^(\d+\.\d+)?$")
    torch_max: str = Field(default="", pattern=r"^(\d+\.\d+)?$")
    torch_versions: str = ""  # the releases this list applies to, as the source states


class GpuArchSupport(Sourced):
    """The support window of one NVIDIA GPU architecture (NVIDIA's CUDA toolkit, driver and
    architecture matrix): the first CUDA toolkit that compiles for it — so the first driver
    that knows it is that toolkit's GA driver, and no binary built with an older CUDA carries
    code for it — the last driver branch that drives it, and the last PyTorch release (with the
    CUDA build) that ships code for it.

    Empty fields mean "not known" or "still supported": nothing is guessed.
    """

    arch: str = Field(pattern=r"^[a-z]+$")  # "kepler", "maxwell", "pascal", "volta", …
    cc_min: str = Field(pattern=r"^\d+\.\d+$")
    cc_max: str = Field(pattern=r"^\d+\.\d+$")
    first_cuda: str = Field(default="", pattern=r"^(\d+\.\d+)?$")
    open_modules_only: bool = False  # only NVIDIA's open kernel modules drive it
    last_driver_branch: str = Field(default="", pattern=r"^(\d+)?$")
    last_torch: str = Field(default="", pattern=r"^(\d+\.\d+)?$")
    last_torch_cuda: str = Field(default="", pattern=r"^(\d+\.\d+)?$")


class DriverBranch(Sourced):
    """A data-centre driver branch NVIDIA supports, its designation and end of life (the
    branch an install script pins when the machine's own driver is not known)."""

    branch: str = Field(pattern=r"^\d+$")
    designation: Literal["lts", "production", "new_feature"]
    end_of_life: str = Field(default="", pattern=r"^(\d{4}-\d{2})?$")
    max_cuda_major: int = Field(ge=9, le=20)


class OsGpuSupport(Sourced):
    """Whether a GPU vendor's compute stack runs on an operating system at all (NVIDIA CUDA
    has no macOS support since CUDA 10.2), and the last toolkit that did."""

    vendor: Literal["nvidia", "amd"]
    os: Literal["macos", "windows", "linux"]
    supported: bool
    last_cuda: str = Field(default="", pattern=r"^(\d+\.\d+)?$")


class RocmGfxOverride(Sourced):
    """`HSA_OVERRIDE_GFX_VERSION` value that makes ROCm treat these gfx targets as a supported
    sibling (a documented workaround, not official support)."""

    gfx: list[str] = Field(min_length=1)
    override: str = Field(pattern=r"^\d+\.\d+\.\d+$")


class AmdGfxTarget(Sourced):
    """LLVM AMDGPU processor names (gfx targets) that exist, for telling a target from a typo."""

    gfx: list[str] = Field(min_length=1)


class AmdGfxCodename(Sourced):
    """The LLVM gfx target of an AMD chip codename ("Navi 22" in lspci → gfx1031)."""

    codename: str = Field(pattern=r"^navi\d+$")
    gfx: str = Field(pattern=r"^gfx[0-9a-f]+$")


class NpuDcmiError(Sourced):
    """An error code `npu-smi` (DCMI) prints as "ret is <code>", and what it means."""

    code: int = Field(le=-1)
    cause: Literal["device_in_other_container", "device_in_use"]


class TorchNpuCann(Sourced):
    """One row of the Ascend PyTorch adapter's version table: torch_npu ↔ PyTorch ↔ CANN."""

    torch_npu: str = Field(pattern=r"^\d+\.\d+\.\d+(\.(post|rc)\d+)?$")
    torch: str = Field(pattern=r"^\d+\.\d+\.\d+$")
    cann: str = Field(pattern=r"^\d+\.\d+\.(\d+|RC\d+)$")


class OllamaGpuRequirement(Sourced):
    """What Ollama's hardware-support page requires of a GPU vendor's driver and device."""

    vendor: Literal["nvidia", "amd"]
    min_compute_capability: str = Field(default="", pattern=r"^(\d+\.\d+)?$")
    min_driver: str = Field(default="", pattern=r"^(\d+(\.\d+)*)?$")
    legacy_max_compute_capability: str = Field(default="", pattern=r"^(\d+\.\d+)?$")
    legacy_min_driver: str = Field(default="", pattern=r"^(\d+(\.\d+)*)?$")
    gfx_targets: list[str] = Field(default_factory=list)  # AMD: LLVM targets ROCm builds ship


COMPAT_KINDS: dict[str, type[BaseModel]] = {
    "cuda_driver": CudaDriverMin,
    "cuda_mvc": CudaMvc,
    "torch_release": TorchRelease,
    "torch_wheel_arch": TorchWheelArch,
    "ollama_gpu_req": OllamaGpuRequirement,
    "gpu_arch_support": GpuArchSupport,
    "rocm_gfx_override": RocmGfxOverride,
    "amd_gfx_codename": AmdGfxCodename,
    "amd_gfx_target": AmdGfxTarget,
    "npu_dcmi_error": NpuDcmiError,
    "torch_npu_cann": TorchNpuCann,
    "driver_branch": DriverBranch,
    "os_gpu_support": OsGpuSupport,
}
