"""Typed tables for `gpuwise setup`: exact release pins, base images that exist, and what each
package needs of a GPU. They extend the compatibility tables (schema_compat, read through
catalog.compat by both `doctor` and `setup`), which answer "which PyTorch release and CUDA
variant fit this GPU, driver and Python".

Registered through SETUP_KINDS (see schema_extra.EXTRA_KINDS); the data is data/compat/setup.toml.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from gpuwise.catalog.schema import Sourced

_OPT_VERSION = r"^(\d+(\.\d+)*)?$"
_MONTH = r"^(\d{4}-\d{2}(-\d{2})?)?$"


class TorchBuild(Sourced):
    """The exact torch / torchvision / torchaudio versions published together for a release.

    torchvision is 0.(minor + 15).patch; torchaudio equals torch, and is empty where no
    torchaudio was published for that release.
    """

    torch: str = Field(pattern=r"^\d+\.\d+\.\d+$")
    torchvision: str = Field(pattern=r"^\d+\.\d+\.\d+$")
    torchaudio: str = Field(default="", pattern=r"^(\d+\.\d+\.\d+)?$")
    released: str = Field(default="", pattern=_MONTH)  # "2026-10": when it was published


class BaseImage(Sourced):
    """A container image tag known to exist (the tag list it was read from is the source).

    kind: cuda (nvidia/cuda, `cuda` is its toolkit X.Y), os (a plain distribution image),
    ollama (Ollama's server image, `variant` "" or "rocm"), uv (the uv binary image).
    """

    kind: Literal["cuda", "os", "ollama", "uv"]
    image: str = Field(pattern=r"^[a-z0-9./_-]+$")
    tag: str = Field(pattern=r"^[A-Za-z0-9._-]+$")
    cuda: str = Field(default="", pattern=r"^(\d+\.\d+)?$")
    os: str = Field(default="", pattern=r"^(ubuntu\d\d\.\d\d)?$")
    variant: str = ""
    released: str = Field(default="", pattern=_MONTH)
    app_uid: int = Field(default=0, ge=0, le=65535)
    """A UID no user of the image holds, for the non-root user (0: not known, use a name)."""

    @property
    def ref(self) -> str:
        """image:tag."""
        return f"{self.image}:{self.tag}"


class PackagePin(Sourced):
    """A package version `setup` installs, and the exact torch it was built against (if any).

    `group` is the stack it belongs to; `wheel_cuda` is the CUDA its binary wheel on PyPI is
    built for (empty: pure Python, or it takes whatever torch brings); `torch_min` and
    `python_min`/`python_max` are the bounds its own metadata declares, which the torch and
    Python chosen beside it must meet or pip refuses the set.
    """

    group: Literal["qlora", "vllm", "flash_attn"]
    package: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]*$")
    version: str = Field(pattern=r"^\d+(\.\d+)*(\.post\d+)?$")
    torch: str = Field(default="", pattern=r"^(\d+\.\d+\.\d+)?$")
    torch_min: str = Field(default="", pattern=r"^(\d+\.\d+)?$")
    """The oldest PyTorch X.Y the package's own requirements accept (empty: any)."""
    wheel_cuda: str = Field(default="", pattern=r"^(\d+\.\d+)?$")
    python_min: str = Field(default="", pattern=_OPT_VERSION)
    python_max: str = Field(default="", pattern=_OPT_VERSION)
    released: str = Field(default="", pattern=_MONTH)


class GpuRequirement(Sourced):
    """What a package needs of a GPU: a minimum NVIDIA compute capability, the AMD gfx targets
    it ships for (empty: none stated), the vendors it runs on at all."""

    package: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]*$")
    vendors: list[Literal["nvidia", "amd", "apple", "cpu"]] = Field(min_length=1)
    min_compute_capability: str = Field(default="", pattern=r"^(\d+\.\d+)?$")
    gfx_targets: list[str] = Field(default_factory=list)
    linux_only: bool = False


class ServerDefault(Sourced):
    """Where a server stack listens and how its health is checked (the engine's documented
    defaults; `start_period_s` is how long the container health check waits before counting
    failures — model loading takes minutes)."""

    engine: Literal["vllm", "ollama"]
    port: int = Field(ge=1, le=65535)
    health_path: str = Field(pattern=r"^/[a-z/]*$")
    start_period_s: int = Field(ge=0, le=3600)
    interval_s: int = Field(ge=1, le=3600)


SETUP_KINDS: dict[str, type[BaseModel]] = {
    "torch_build": TorchBuild,
    "base_image": BaseImage,
    "package_pin": PackagePin,
    "gpu_requirement": GpuRequirement,
    "server_default": ServerDefault,
}
