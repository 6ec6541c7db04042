"""Typed tables for `gpuwise export`: how a plan's numbers are spelled for each engine, launcher
and scheduler (flag names, mapped values), which clouds and accelerator names SkyPilot knows,
the Kubernetes resource of each vendor's device plugin, the engines' container images and the
few sizes the export files need.

Registered through EXPORT_KINDS (see schema_extra.EXTRA_KINDS); the data is
data/compat/export.toml, every row with its source. A flag that changes name in a new engine
release, or a cloud SkyPilot adds, is a data change, not a code change.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from gpuwise.catalog.schema import Sourced

_ID = r"^[a-z0-9][a-z0-9._-]*$"


class ExportFlag(Sourced):
    """A command, flag, environment variable or Modelfile parameter name of one tool.

    `id` is `<tool>.<key>` (vllm.tensor_parallel, torchrun.nproc_per_node, ollama.num_ctx); the
    code asks for the key, the catalog says how this version of the tool spells it.
    """

    id: str = Field(pattern=_ID)
    value: str = Field(min_length=1)


class ExportValue(Sourced):
    """A plan value as a tool names it: `<map>.<plan value>` → the tool's value
    (vllm_quantization.int4-awq → awq, deepspeed_zero_stage.zero2 → 2)."""

    id: str = Field(pattern=_ID)
    value: str = Field(min_length=1)


class SkypilotCloud(Sourced):
    """A catalog provider SkyPilot launches on, by the name its `infra` field takes."""

    id: str = Field(pattern=_ID)
    infra: str = Field(pattern=r"^[a-z0-9/_-]+$")


class SkypilotAccelerator(Sourced):
    """SkyPilot's accelerator name of a catalog GPU, and the clouds its catalog lists it on (a
    card may have a name per cloud: A6000 on Lambda, RTXA6000 on RunPod)."""

    id: str = Field(pattern=_ID)
    gpu: str = Field(pattern=_ID)
    name: str = Field(pattern=r"^[A-Za-z0-9 _.-]+$")
    clouds: list[str] = Field(default_factory=list)


class K8sDevice(Sourced):
    """The extended resource a vendor's Kubernetes device plugin advertises (per GPU where one
    chip is named apart, e.g. the Ascend 310P of the Atlas 300I Duo)."""

    id: str = Field(pattern=_ID)
    vendor: str = Field(pattern=_ID)
    gpus: list[str] = Field(default_factory=list)
    resource: str = Field(pattern=r"^[a-z0-9.-]+/[A-Za-z0-9._-]+$")


class ExportImage(Sourced):
    """A published container image of a serving engine for one software stack (cuda, rocm,
    cann), pinned to a tag known to exist; `gpus` narrows it to the cards it is built for."""

    id: str = Field(pattern=_ID)
    engine: str = Field(pattern=_ID)
    stack: str = Field(pattern=_ID)
    image: str = Field(pattern=r"^[a-z0-9./_-]+$")
    tag: str = Field(pattern=r"^[A-Za-z0-9._-]+$")
    gpus: list[str] = Field(default_factory=list)

    @property
    def ref(self) -> str:
        """image:tag."""
        return f"{self.image}:{self.tag}"


class ExportSetting(Sourced):
    """A number an export file needs that the plan does not carry (a default port, SkyPilot's
    default disk, a shared-memory size), with its source or the assumption it is."""

    id: str = Field(pattern=_ID)
    value: float = Field(ge=0)
    unit: str = ""


EXPORT_KINDS: dict[str, type[BaseModel]] = {
    "export_flag": ExportFlag,
    "export_value": ExportValue,
    "skypilot_cloud": SkypilotCloud,
    "skypilot_accelerator": SkypilotAccelerator,
    "k8s_device": K8sDevice,
    "export_image": ExportImage,
    "export_setting": ExportSetting,
}
