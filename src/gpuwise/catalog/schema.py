"""Typed catalog entries (pydantic, unknown keys rejected).

Numbers are plain in these models; where each one came from is kept beside them in
`field_sources` (field name → source id), filled by the loader from the TOML's default `source`
and per-number `{value, source}` tables. See docs/catalog-format.md.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, PositiveInt, model_validator

Vendor = Literal["nvidia", "amd", "intel", "huawei", "google", "aws", "apple", "other"]
GpuClass = Literal["consumer", "workstation", "datacenter"]
Currency = Literal["USD", "CNY"]
PRECISIONS: tuple[str, ...] = ("fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4")


class Strict(BaseModel):
    """Base: reject unknown keys, freeze after validation."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, defer_build=True)


class Source(Strict):
    """Where a number comes from and when it was read."""

    id: str
    url: str = Field(pattern=r"^(https?://|file:)")
    title: str = ""
    retrieved: dt.date


class Sourced(Strict):
    """An entry whose numbers each resolve to a source id."""

    source: str
    field_sources: dict[str, str] = Field(default_factory=dict)
    notes: str = ""

    def source_ids(self) -> list[str]:
        """Every source this entry uses, default first, without repeats."""
        seen = dict.fromkeys([self.source, *self.field_sources.values()])
        return list(seen)


class Tflops(Strict):
    """Dense (no 2:4 sparsity) peak rates; tensor-core rate where the unit exists."""

    fp32: PositiveFloat | None = None
    tf32: PositiveFloat | None = None
    bf16: PositiveFloat | None = None
    fp16: PositiveFloat | None = None
    fp8: PositiveFloat | None = None
    int8: PositiveFloat | None = None
    int4: PositiveFloat | None = None

    def as_dict(self) -> dict[str, float]:
        """Only the precisions the hardware has."""
        return {k: v for k, v in self.model_dump().items() if v is not None}


class Stack(Strict):
    """Which software stack drives the device."""

    cuda_cc: str | None = Field(default=None, pattern=r"^\d+\.\d+$")
    rocm_gfx: str | None = Field(default=None, pattern=r"^gfx[0-9a-f]+$")
    oneapi: bool = False
    gaudi: bool = False
    cann: bool = False
    xla: bool = False
    neuron: bool = False
    metal: bool = False

    def names(self) -> list[str]:
        """Stack names as the feature matrix keys them (cuda, rocm, oneapi, …)."""
        out = []
        if self.cuda_cc:
            out.append("cuda")
        if self.rocm_gfx:
            out.append("rocm")
        out += [
            n for n in ("oneapi", "gaudi", "cann", "xla", "neuron", "metal") if getattr(self, n)
        ]
        return out


class Price(Strict):
    """A dated price of a card: launch MSRP or a street price."""

    kind: Literal["launch", "street"]
    amount: PositiveFloat
    currency: Currency
    date: dt.date
    source: str
    note: str = ""


class Gpu(Sourced):
    """One accelerator model."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    name: str
    vendor: Vendor
    gpu_class: GpuClass = Field(alias="class")
    architecture: str = ""
    release_year: int = Field(ge=2010, le=2030)
    aliases: list[str] = Field(default_factory=list)
    memory_gb: PositiveFloat
    memory_type: str = ""
    memory_bandwidth_gbps: PositiveFloat | None = None
    tdp_w: PositiveFloat | None = None
    pcie_gen: int = Field(ge=0, le=6)
    form_factor: Literal["pcie", "sxm", "oam", "module", "soc", "tpu"] = "pcie"
    unified_memory: bool = False
    interconnect: Literal[
        "none",
        "nvlink",
        "nvlink-bridge",
        "infinity-fabric",
        "xe-link",
        "hccs",
        "ici",
        "neuronlink",
        "roce",
    ] = "none"
    interconnect_gbps: float | None = Field(default=None, ge=0)
    max_per_host: PositiveInt = 8
    export_note: str = ""
    stack: Stack = Field(default_factory=Stack)
    tflops: Tflops = Field(default_factory=Tflops)
    prices: list[Price] = Field(default_factory=list)

    @model_validator(mode="after")
    def _link_consistent(self) -> Gpu:
        if self.interconnect == "none" and self.interconnect_gbps:
            raise ValueError("validate.link_mismatch")
        return self

    def source_ids(self) -> list[str]:
        """Default, per-number and per-price sources."""
        return list(dict.fromkeys([*super().source_ids(), *(p.source for p in self.prices)]))


class Mla(Strict):
    """Multi-head latent attention (DeepSeek V2/V3): the KV cache holds a compressed latent."""

    kv_lora_rank: PositiveInt
    qk_rope_head_dim: PositiveInt
    qk_nope_head_dim: PositiveInt
    v_head_dim: PositiveInt
    q_lora_rank: int = Field(default=0, ge=0)


class Moe(Strict):
    """Mixture of experts: all experts are resident, `active_experts` run per token."""

    experts: PositiveInt
    active_experts: PositiveInt
    shared_experts: int = Field(default=0, ge=0)
    expert_intermediate_size: PositiveInt
    moe_layers: PositiveInt
    shared_expert_intermediate_size: int = Field(default=0, ge=0)


class LlmModel(Sourced):
    """One LLM architecture, as its config.json describes it."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]*$")
    name: str
    family: str
    release: dt.date | None = None
    hf_repos: list[str] = Field(default_factory=list)
    ollama_tags: list[str] = Field(default_factory=list)
    aliases: list[str] = Field(default_factory=list)
    params_b: PositiveFloat
    active_params_b: PositiveFloat
    layers: PositiveInt
    hidden_size: PositiveInt
    intermediate_size: PositiveInt
    heads: PositiveInt
    kv_heads: PositiveInt
    head_dim: PositiveInt
    vocab_size: PositiveInt
    tied_embeddings: bool = False
    gated_ffn: bool = True
    max_context: PositiveInt
    sliding_window: PositiveInt | None = None
    sliding_window_layers: int | None = Field(default=None, ge=0)
    mla: Mla | None = None
    moe: Moe | None = None
    origin: Literal["catalog", "config.json", "gguf"] = "catalog"
    gguf_file_type: str | None = None
    gguf_weight_bytes: int | None = None

    @model_validator(mode="after")
    def _shapes_consistent(self) -> LlmModel:
        if self.active_params_b > self.params_b * 1.0001:
            raise ValueError("validate.active_gt_total")
        if self.heads % self.kv_heads:
            raise ValueError("validate.heads_kv")
        if self.sliding_window_layers is not None and self.sliding_window_layers > self.layers:
            raise ValueError("validate.window_layers")
        if self.moe and self.moe.active_experts > self.moe.experts:
            raise ValueError("validate.moe_active")
        return self

    @property
    def window_layers(self) -> int:
        """How many layers attend over a sliding window (0 when the model has none)."""
        if self.sliding_window is None:
            return 0
        return self.layers if self.sliding_window_layers is None else self.sliding_window_layers
