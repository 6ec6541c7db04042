"""Typed rows of the precision/format support table: which engine runs which format where.

One row says, for one engine and a set of architectures (or individual GPUs), whether a set of
weight/KV formats runs, at which tensor rate the kernels compute, through which kernel or
port, and which page of the engine's own documentation says so. The rows live in
data/compat/precision.toml; `gpuwise.catalog.precision` picks the most specific row for a
(engine, GPU, format) question. Registered into the catalog through PRECISION_KINDS.
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, Field, model_validator

from gpuwise.catalog.schema import Sourced

PrecisionFormat = Literal[
    "fp32",
    "bf16",
    "fp16",
    "fp8",
    "fp8-w8a16",
    "int8-w8a8",
    "awq",
    "gptq",
    "bnb-nf4",
    "bnb-int8",
    "gguf",
    "mlx",
    "mxfp4",
    "kv-fp8",
]
PRECISION_FORMATS: tuple[str, ...] = get_args(PrecisionFormat)
"""The closed set of formats, in the order `supported_formats` reports them."""

ComputeDtype = Literal["fp8", "int8", "bf16", "fp16", "fp32"]
WILDCARD = "*"


class PrecisionSupport(Sourced):
    """Whether `engine` runs `formats` on `architectures` (or on the listed `gpus`).

    `architectures` holds `Gpu.architecture` strings as written in data/gpus, or ["*"] for a
    statement that holds on every architecture (use it only for "no"-style facts such as
    "llama.cpp reads GGUF only"). `gpus` narrows a row to individual GPU ids (Ascend 310P and
    910B share the architecture "Da Vinci"). `compute` is the tensor rate the kernels run at,
    e.g. "bf16" for FP8 weights dequantized by FP8-Marlin on Ampere.
    """

    engine: str = Field(pattern=r"^[a-z0-9][a-z0-9.\-]*$")
    architectures: list[str] = Field(default_factory=list)
    gpus: list[str] = Field(default_factory=list)
    cuda_cc: list[str] = Field(default_factory=list)
    """CUDA compute capabilities the row holds for ("12.0": every SM120 card, GeForce RTX 50
    and RTX PRO Blackwell alike): kernels are built per capability, so a row written for one
    card of it holds for its twins (blind w26-03: the RTX PRO 6000 Max-Q lacked the MXFP4
    caveat of the RTX PRO 6000, the same die)."""
    formats: list[PrecisionFormat] = Field(min_length=1)
    support: Literal["yes", "partial", "no"]
    compute: ComputeDtype | None = None
    via: str = ""
    note_en: str = ""
    note_zh: str = ""

    @model_validator(mode="after")
    def _consistent(self) -> PrecisionSupport:
        if not self.architectures and not self.gpus and not self.cuda_cc:
            raise ValueError("validate.precision_target")
        if WILDCARD in self.architectures and (
            len(self.architectures) > 1 or self.gpus or self.cuda_cc
        ):
            raise ValueError("validate.precision_wildcard")
        if len(set(self.formats)) != len(self.formats):
            raise ValueError("validate.precision_repeat")
        if self.support == "no" and self.compute is not None:
            raise ValueError("validate.precision_compute_no")
        return self


PRECISION_KINDS: dict[str, type[BaseModel]] = {"precision_support": PrecisionSupport}
