"""What `setup` works on: the target machine, the pins it chose, and a refusal when none work."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Vendor = Literal["nvidia", "amd", "apple", "ascend", "cpu"]
STACKS: tuple[str, ...] = ("pytorch", "qlora", "vllm", "ollama")
STACK_ALIASES: dict[str, str] = {
    "torch": "pytorch",
    "transformers+peft+bitsandbytes": "qlora",
    "transformers": "qlora",
}


@dataclass(frozen=True)
class Target:
    """The machine the environment is for: facts probed here, or given as flags.

    `os` is "ubuntu22.04"-style for Linux distributions, "macos", "windows" or "" (unknown);
    `place` is native | wsl2 | container | windows.
    """

    vendor: Vendor
    python: str
    gpu: str = ""  # catalog id, when known
    gpu_name: str = ""
    compute_capability: str = ""
    gfx: str = ""
    driver: str = ""
    rocm: str = ""
    cann: str = ""
    os: str = ""
    place: str = "native"
    origin: Literal["flags", "probe"] = "flags"

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape."""
        return {k: v for k, v in self.__dict__.items()}


@dataclass(frozen=True)
class Pin:
    """One pinned package (or image), why it was chosen (an i18n key), and the catalog
    sources of the table rows behind it."""

    name: str
    version: str
    why: str
    sources: tuple[str, ...]
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Refusal:
    """Why the requested combination cannot work, and the nearest one that does.

    `reason` and `nearest` are i18n keys under setup.refuse.* / setup.nearest.*.
    """

    reason: str
    params: dict[str, Any]
    nearest: str
    nearest_params: dict[str, Any]
    sources: tuple[str, ...] = ()


@dataclass(frozen=True)
class Plan:
    """Everything the renderers need: pins, package indexes, base image, server settings."""

    stack: str
    target: Target
    pins: tuple[Pin, ...] = ()
    index_url: str = ""  # replaces PyPI (PyTorch-only stacks)
    extra_index_url: str = ""  # beside PyPI
    base_image: Pin | None = None
    uv_image: Pin | None = None
    env: tuple[tuple[str, str], ...] = ()
    server: Any | None = None  # a ServerDefault row
    notes: tuple[tuple[str, dict[str, Any]], ...] = ()
    refusal: Refusal | None = None
    driver_branch: str = ""  # NVIDIA: the branch install-driver.sh pins
    need_driver: str = ""  # NVIDIA: the driver the chosen wheel needs
    open_modules_only: bool = False  # NVIDIA: only the open kernel modules drive this GPU
    app_uid: int = 0  # a free UID in the base image for the non-root user (0: use a name)

    def version_of(self, name: str) -> str:
        """The pinned version of a package ("" when not pinned)."""
        return next((p.version for p in self.pins if p.name == name), "")
