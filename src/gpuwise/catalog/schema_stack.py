"""Which software stack drives a device (split from schema.py to keep it small).

`Stack` holds CUDA's compute capability, ROCm's gfx target and one flag per other stack; the
feature matrix (data/features.toml) and the engine choice (advise/engines.py) key on the names
`Stack.names` gives.
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, defer_build=True)


StackName = Literal[
    "cuda",
    "rocm",
    "oneapi",
    "gaudi",
    "cann",
    "xla",
    "neuron",
    "metal",
    "musa",
    "dtk",
    "maca",
    "corex",
    "kunlun",
]
"""Every software stack the catalog names (the feature matrix keys on these)."""
STACKS: tuple[str, ...] = get_args(StackName)
FLAG_STACKS: tuple[str, ...] = STACKS[2:]
"""The boolean stack flags, in the order `Stack.names` lists them (after cuda and rocm)."""


class Stack(_Strict):
    """Which software stack drives the device."""

    cuda_cc: str | None = Field(default=None, pattern=r"^\d+\.\d+$")
    rocm_gfx: str | None = Field(default=None, pattern=r"^gfx[0-9a-f]+$")
    oneapi: bool = False
    gaudi: bool = False
    cann: bool = False
    xla: bool = False
    neuron: bool = False
    metal: bool = False
    musa: bool = False
    """Moore Threads MUSA (MTT S-series): vLLM runs through Moore Threads' MUSA build."""
    dtk: bool = False
    """Hygon DCU Toolkit (DTK), derived from ROCm but shipped with Hygon's own vLLM builds."""
    maca: bool = False
    """MetaX MXMACA (曦云 C-series): vLLM runs through the vllm-metax plugin."""
    corex: bool = False
    """Iluvatar CoreX (天垓/智铠): vLLM runs through the vllm-iluvatar plugin."""
    kunlun: bool = False
    """Kunlunxin XPU runtime (XRE, P800): vLLM runs through the vllm-kunlun plugin."""

    def names(self) -> list[str]:
        """Stack names as the feature matrix keys them (cuda, rocm, oneapi, …)."""
        out = []
        if self.cuda_cc:
            out.append("cuda")
        if self.rocm_gfx:
            out.append("rocm")
        out += [n for n in FLAG_STACKS if getattr(self, n)]
        return out
