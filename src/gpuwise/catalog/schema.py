"""Typed catalog entries (pydantic, unknown keys rejected).

Numbers are plain in these models; where each one came from is kept beside them in
`field_sources` (field name → source id), filled by the loader from the TOML's default `source`
and per-number `{value, source}` tables. See docs/catalog-format.md.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, PositiveInt, model_validator

from gpuwise.catalog.schema_arch import (
    CompressedAttention,
    GlobalAttention,
    LinearAttention,
    Mla,
    Moe,
    SparseAttention,
    Ssm,
    Vision,
)
from gpuwise.catalog.schema_stack import Stack

Vendor = Literal[
    "nvidia",
    "amd",
    "intel",
    "huawei",
    "google",
    "aws",
    "apple",
    "cambricon",
    "hygon",
    "moorethreads",
    "biren",
    "iluvatar",
    "metax",
    "kunlunxin",
    "enflame",
    "other",
]
"""Who makes the chip. The Chinese vendors (Cambricon, Hygon, Moore Threads, Biren, Iluvatar,
MetaX, Kunlunxin, Enflame) ship their own software stacks (Neuware, DTK, MUSA, SUPA, CoreX,
MXMACA, XRE, TopsRider). `Stack` flags the ones a cited vLLM build runs on (musa, dtk, maca,
corex, kunlun); a card without a flag, or a format without a precision row citing a source, is
"unknown" (never "yes")."""
GpuClass = Literal["consumer", "workstation", "datacenter"]
Currency = Literal["USD", "CNY", "EUR"]
PRECISIONS: tuple[str, ...] = ("fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4")


class Strict(BaseModel):
    """Base: reject unknown keys, freeze after validation."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, defer_build=True)


Dating = Literal["page", "commit", "snapshot", "feed", "user"]
"""How a source's `published` date was established (docs/catalog-format.md, "Dating prices"):
page = the date the page states; commit = the date of the commit that stored the file (an upper
bound: the price was published on or before it); snapshot = a dataset row's snapshot date;
feed = the date a price feed states for the row (or its Last-Modified); user = the user's own."""


class Source(Strict):
    """Where a number comes from, when it was read (`retrieved`) and, for prices, the date the
    source itself states (`published`; "undated" when it states none)."""

    id: str
    url: str = Field(pattern=r"^(https?://|file:)")
    title: str = ""
    retrieved: dt.date
    published: dt.date | Literal["undated"] | None = None
    dated_by: Dating | None = None

    @property
    def published_date(self) -> dt.date | None:
        """The stated date, or None when the source states none (or was never checked)."""
        return self.published if isinstance(self.published, dt.date) else None


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


class Price(Strict):
    """A dated price of a card: launch MSRP or a street price.

    `date` is the day the source states for the price; a source that states none leaves it out
    (and says `published = "undated"`): the price is then "date unknown", never dated by the
    day it was read."""

    kind: Literal["launch", "street", "used"]
    """launch: the MSRP at launch. street: the dated price a buyer pays today: new, or the
    second-hand market for a card no longer sold new (Tesla P40, the modified RTX 2080 Ti 22 GB,
    RTX 30 cards) or when no new price was found; the note says "second-hand" then. used: a
    second-hand price shown beside a card's new prices. The cost model buys at the newest street,
    else launch price, so every priced card has one of those two."""
    amount: PositiveFloat
    currency: Currency
    date: dt.date | None = None
    source: str
    note: str = ""
    includes_host: bool = False
    """The price is a whole server's divided by its GPUs: the host's share is already in it."""
    condition: Literal["new", "used", "mixed"] | None = None
    """What the price buys: new (with the maker's warranty), used (second-hand), or mixed (a
    marketplace's listings of both, condition not stated). A launch price is new and a used
    price used without saying so; a street price must say (the integrity tests check), because
    an institution buys new only (gpuwise.cost.channel)."""
    channel: Literal["list", "retail", "distributor", "marketplace", "report"] | None = None
    """Where the price was seen: the maker's list price, a shop's new price, a distributor's
    channel price, a marketplace's asking price (eBay, Xianyu), or a press report or guide.
    None: list for a launch price, marketplace for a used one."""

    @property
    def bought_as(self) -> Literal["new", "used", "mixed"]:
        """The condition this price buys, with the kind's default when the entry says none."""
        if self.condition is not None:
            return self.condition
        if self.kind == "launch":
            return "new"
        return "used" if self.kind == "used" else "mixed"

    @property
    def seen_at(self) -> str:
        """The channel this price was seen in, with the kind's default when the entry says none."""
        if self.channel is not None:
            return self.channel
        return {"launch": "list", "used": "marketplace"}.get(self.kind, "report")


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
    host_cpu: Literal["x86_64", "aarch64"] | None = None
    """The CPU the accelerator always comes with, where it is part of the product (a Grace
    superchip, a DGX Spark): an Arm host runs only software built for aarch64
    (advise/host_arch.py). None: the buyer's or the cloud's host, x86_64 in practice."""
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
    devices_per_card: PositiveInt = 1
    """Devices the software sees on one bought card (Atlas 300I Duo, MI250: 2). Memory,
    bandwidth, TFLOPS and TDP describe ONE device; prices stay per card."""
    rent_only: bool = False
    """Offered only as cloud instances (TPU, Trainium, Inferentia): cannot be bought."""
    export_restricted_in: list[Literal["cn"]] = Field(default_factory=list)
    """Markets where the card cannot be bought new through official channels under US export
    rules; the rule, its date and source are in `export_note`."""
    supply_uncertain_in: list[Literal["cn"]] = Field(default_factory=list)
    """Markets where the card is sold but its supply has been cut by export licensing and may
    be again (the H20: a US licence needed from 9 April 2025, granted again from July, China's
    regulator summoning Nvidia on 31 July; dates and sources in `export_note`): a purchase
    there carries the risk that delivery stalls (blind w65-02 was sold one with no word)."""
    regions: list[Literal["cn", "global"]] = Field(default_factory=list)
    """Markets the card is sold in (as for systems; empty: everywhere): a China-market variant
    or a card modified there is ["cn"], never offered to buy elsewhere (no shop, no price)."""
    server_edition_in: list[Literal["cn"]] = Field(default_factory=list)
    """Markets where a consumer card is sold rebuilt as a two-slot blower ("turbo", 涡轮版)
    card made to be packed into rack servers (Chinese factories refit GeForce chips onto such
    boards; NVIDIA's partners make no blower GeForce above 300 W elsewhere). Empty: the card
    comes only with an open-air cooler, which an organisation's rack server does not take
    (advise.duty.racked_service)."""
    cooling: Literal["active", "passive", "liquid"] = "active"
    """passive: no fan of its own, needs a server's forced airflow (datacenter PCIe, SXM/OAM)."""
    whole_system: bool = False
    """The entry is a whole computer (Apple Silicon): its prices are the machine's."""
    usable_memory_fraction: float | None = Field(default=None, gt=0, le=1)
    """Share of `memory_gb` one process may use for the accelerator by default (Metal's
    recommendedMaxWorkingSetSize / unified memory); None = all of it."""
    export_note: str = ""
    production_ended: dt.date | None = None
    """When the maker stopped making the card (sourced in the data file): after it, no new card
    is sold at its launch price, and a buyer who buys new only (a company) pays only a new
    price seen after that day (gpuwise.cost.channel). None: still made, or not known."""
    modified: bool = False
    """A third-party modification of a vendor card (memory chips replaced, e.g. the RTX 2080 Ti
    22 GB common in China): no vendor warranty, sold used or refurbished only."""
    unpriced_reason: str = ""
    """Why a buyable card has no purchase price in the catalog (sold only through tenders or
    system quotes, or no dated public price was found); empty when it has one. A card with
    neither is an error the integrity tests report."""
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
    # Shapes beyond the Llama pattern (all optional; defaults describe a Llama-style model).
    norm: Literal["rms", "layer"] = "rms"
    """LayerNorm carries a weight and a bias per channel, RMSNorm only a weight."""
    norms_per_layer: int = Field(default=2, ge=0)
    """Norms inside one block: 2 (pre-attention, pre-FFN), 1 (parallel blocks: GPT-J, Phi-2,
    Falcon-7B), 4 (Gemma 2/3 pre- and post-norms)."""
    qk_norm: bool = False
    qkv_bias: bool = False
    o_bias: bool = False
    ffn_bias: bool = False
    lm_head_bias: bool = False
    embedding_norm: bool = False
    """A norm right after the word embeddings (BLOOM's word_embeddings_layernorm)."""
    learned_positions: int = Field(default=0, ge=0)
    """Rows of a learned position table (GPT-2/BigCode/OPT/BLOOM-free RoPE models: 0)."""
    parallel_attn_ffn: bool = False
    rotary_fraction: float = Field(default=1.0, ge=0, le=1)
    attention_layers: int | None = Field(default=None, ge=0)
    """Layers with attention (and so a KV cache); None = every layer. Hybrids (Jamba) fewer."""
    ffn_layers: int | None = Field(default=None, ge=0)
    """Layers with a feed-forward block; None = every layer (pure Mamba: 0)."""
    ssm: Ssm | None = None
    linear_attention: LinearAttention | None = None
    """Linear-attention layers of a hybrid (their fixed state replaces a KV cache there)."""
    sparse_attention: SparseAttention | None = None
    """DeepSeek sparse attention: an indexer key per cached token, attention over top-k."""
    global_attention: GlobalAttention | None = None
    """Full-attention layers shaped unlike the sliding-window ones (Gemma 4)."""
    compressed_attention: CompressedAttention | None = None
    """DeepSeek-V4: a window in every layer plus a compressed history (CSA/HCA)."""
    attn_output_gate: bool = False
    """Gated attention (Qwen3-Next, Qwen3.5): q_proj also emits a sigmoid gate per head dim."""
    vision: Vision | None = None
    """The image encoder of a vision-language model (counted in `params_b`)."""
    task: Literal["generate", "embed", "rerank"] = "generate"
    """What the model is served for: text generation, or pooled vectors / relevance scores."""
    bidirectional: bool = False
    """Encoder-only (BERT/XLM-R): every token attends to every other in one pass; no KV cache."""
    weight_bytes_exact: int | None = Field(default=None, ge=0)
    """Bytes of the weights as stored in the model's own files (safetensors header or index)."""
    weight_dtype: str | None = None
    """Storage format of those files: bf16, fp16, fp32, fp8, mxfp4, gptq-int4, …"""
    weight_format_hint: str | None = None
    """The catalog weight-format id the checkpoint is stored in, when one matches (fp8,
    int4-gptq, mxfp4): read from a local folder's quantization_config, or stated with a source in
    a catalog entry (gpt-oss ships MXFP4). Inference defaults to it (estimate with no --quant,
    the planner's ladder starts from it) instead of dequantizing to 16 bits."""

    hint_rest_bits: float | None = Field(default=None, gt=0, le=16)
    """Bits per weight of the linear weights outside the experts in the shipped checkpoint,
    where the hinted format quantizes only the experts and the rest is not 16-bit (DeepSeek-V4:
    FP8 in 128 × 128 blocks). None: 16 bits, as gpt-oss ships them."""

    engine_architectures: dict[str, list[str]] = Field(default_factory=dict)
    """Engines whose CUDA kernels for this model run only on some SM versions (the names of
    estimate.speed_keys.kernel_arch, `Hopper sm_90`; other backends are not restricted by it),
    sourced: DeepSeek-V4 on vLLM needs
    DeepGEMM and FlashMLA, which exist for sm_90 and sm_100 (blind w49-01: planned on SM120
    cards that no mainline engine runs it on). An engine not listed runs it wherever its
    formats run."""
    engine_architectures_sources: list[str] = Field(default_factory=list)
    """The source ids that say where those kernels exist (the table is a dict, so it is
    sourced as a whole here rather than through `field_sources`)."""

    def source_ids(self) -> list[str]:
        """Default, per-field and kernel-table sources."""
        return list(dict.fromkeys([*super().source_ids(), *self.engine_architectures_sources]))

    @model_validator(mode="after")
    def _shapes_consistent(self) -> LlmModel:
        if self.active_params_b > self.params_b * 1.0001:
            raise ValueError("validate.active_gt_total")
        if self.heads % self.kv_heads:
            raise ValueError("validate.heads_kv")
        if self.sliding_window_layers is not None and self.sliding_window_layers > self.kv_layers:
            raise ValueError("validate.window_layers")
        if self.attention_layers is not None and self.attention_layers > self.layers:
            raise ValueError("validate.attention_layers")
        if self.moe and self.moe.active_experts > self.moe.experts:
            raise ValueError("validate.moe_active")
        if self.linear_attention and self.kv_layers + self.linear_attention.layers > self.layers:
            raise ValueError("validate.attention_layers")
        if self.global_attention and self.sliding_window is None:
            raise ValueError("validate.window_layers")
        ca = self.compressed_attention
        if ca and (self.sliding_window is None or ca.csa_layers + ca.hca_layers > self.layers):
            raise ValueError("validate.window_layers")
        return self

    @property
    def window_layers(self) -> int:
        """How many layers attend over a sliding window (0 when the model has none)."""
        if self.sliding_window is None:
            return 0
        return self.kv_layers if self.sliding_window_layers is None else self.sliding_window_layers

    @property
    def global_layers(self) -> int:
        """Layers that attend over the whole context (every attention layer without a window)."""
        return self.kv_layers - self.window_layers

    @property
    def kv_layers(self) -> int:
        """Layers that keep a KV cache (attention layers; a hybrid's Mamba or linear-attention
        layers keep none)."""
        if self.attention_layers is not None:
            return self.attention_layers
        if self.linear_attention is not None:
            return self.layers - self.linear_attention.layers
        return self.layers
