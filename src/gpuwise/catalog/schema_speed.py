"""Typed constants of the speed model: achievable fractions of datasheet peaks, per engine.

Datasheet peaks overstate what LLM kernels reach; these fractions turn peaks into achievable
rates. The hand-written ones (data/speed.toml) each carry a source; the fitted ones
(data/speed_fitted.toml) are written by `benchmarks/calibrate_speed.py` from the published
measurements in tests/data/speed_cases.toml and name them in `calibrated_on`. A user can
override any of them with a measured number (docs/catalog-format.md).
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import BaseModel, Field, NonNegativeFloat, PositiveFloat

from gpuwise.catalog.schema import Sourced

Backend = Literal["cuda", "rocm", "metal", "vulkan", "other", "any"]
MemoryKind = Annotated[
    str, Field(pattern=r"^(any|hbm|gddr|gddr-ecc|unified)(-(rocm|vulkan|other|sm\d+))?$")
]
"""The memory a decode share belongs to: its kind, qualified by the SM version of CUDA cards
(sm80 for the A100's GA100, sm86 for GA10x) or by the backend when the kernels are not CUDA's
(the same engine's HIP or Vulkan kernels reach other shares of the bandwidth)."""

TensorRate = Literal["bf16", "fp16", "fp16_acc16", "fp8", "int8"]
PrefillRate = TensorRate | Literal["bf16+wq", "fp16+wq"]
"""A prefill group's rate: the tensor rate, "+wq" when weight-only quantized kernels (AWQ, GPTQ,
bitsandbytes) run the GEMMs at it — they dequantize inside the GEMM and are not the float
GEMM at the same rate."""


class DecodeEfficiency(Sourced):
    """Share of the memory bandwidth an engine's decode kernels reach on one kind of memory."""

    engine: str = "any"
    memory: MemoryKind = "any"
    bandwidth_fraction: float = Field(gt=0, le=1)
    expert_bandwidth_fraction: float | None = Field(default=None, gt=0, le=1)
    """The share a MoE's fused expert kernels reach reading the routed experts a step touches
    (few tokens per expert at decode: short, scattered weight tiles), where it differs from the
    dense layers' long streams; None: the same share."""
    calibrated_on: list[str] = Field(default_factory=list)


class DecodeOverhead(Sourced):
    """Fixed time per layer and token (kernel launches, synchronisation, sampling)."""

    engine: str = "any"
    backend: Backend = "any"
    ms_per_layer: NonNegativeFloat
    calibrated_on: list[str] = Field(default_factory=list)


class DequantCost(Sourced):
    """CUDA-core work per quantized weight a decode step reads, in FP32-FLOP equivalents.

    Quantized mat-vec kernels unpack and scale every weight on the vector units; divided by the
    card's FP32 rate this is time that bandwidth alone does not show (large on A100/H100, whose
    vector throughput is low next to their bandwidth, small on GeForce cards).
    """

    engine: str = "any"
    kind: str = "any"
    flops_per_weight: NonNegativeFloat
    calibrated_on: list[str] = Field(default_factory=list)


class PrefillEfficiency(Sourced):
    """Share of the tensor rate an engine's prefill GEMMs reach, per backend, architecture, path."""

    engine: str = "any"
    backend: Backend = "any"
    architecture: str = "any"
    rate: PrefillRate | Literal["any"] = "any"
    fraction: float = Field(gt=0, le=1)
    calibrated_on: list[str] = Field(default_factory=list)
    model_kind: Literal["any", "moe"] = "any"
    """"any": the GEMMs' share for every model, fitted on dense models' measurements, MoE prompt
    benchmarks as they are and MoE servers divided by their engine's MoE factor; "moe": an
    engine's share on mixture-of-experts models on one architecture, fitted on theirs (a MoE
    server's routed GEMMs and expert traffic are not a dense GEMM's: taken as they were, six
    MoE servers set vLLM's dense FP8 share on Hopper to 0.23; estimate/speed_fit_shares.py)."""


class KernelPath(Sourced):
    """Which tensor rate an engine's prefill GEMMs run at for a weight format.

    W8A8 FP8 runs at the FP8 rate where the card has one; weight-only formats (GPTQ, AWQ,
    bitsandbytes NF4, MLX) dequantize to 16 bits and run at the 16-bit rate; llama.cpp's
    quantized GEMMs (MMQ) run on INT8 tensor cores; its F16 GEMMs accumulate in FP16. An entry
    with `before` describes builds older than that date (a measurement made with one says so).
    `staging_bytes_per_weight`: kernels that first dequantize each weight matrix to a 16-bit copy
    write it (2 bytes per weight) for every prefill chunk before the GEMM runs.
    `train_dequant_bytes_per_weight`: memory traffic, in bytes per frozen quantized weight at the
    card's datasheet bandwidth, of dequantizing it to a 16-bit copy for one matmul of a training
    micro-step (QLoRA: forward, input-gradient backward, recomputed forward).
    """

    engine: str = "any"
    backend: Backend = "any"
    kind: str
    rate: TensorRate
    staging_bytes_per_weight: NonNegativeFloat = 0.0
    train_dequant_bytes_per_weight: NonNegativeFloat = 0.0
    before: dt.date | None = None
    weight_only_gemm: bool | None = None
    """Whether the prefill GEMMs are the weight-only group ("+wq": dequantizing generic kernels
    such as AutoAWQ's or exllama's) or run like 16-bit GEMMs (Marlin dequantizes in registers at
    the tensor rate); None: by the kind (AWQ, GPTQ, bitsandbytes are weight-only)."""


class EngineEra(Sourced):
    """Builds of an engine before a documented change whose decode costs differ (e.g. vLLM
    before CUDA graphs). Measurements made with such a build are fitted as their own group, a
    child of the engine's, so they do not blur what current builds do."""

    engine: str
    before: dt.date
    era: str
    backend: str | None = None
    """Only builds for this backend (e.g. "cuda": a CUDA-only change); None: every backend."""


class EngineScheduler(Sourced):
    """An engine scheduler's defaults: how many requests run at once and how many tokens one
    step batches. Engines pick them by device (vLLM: larger on GPUs of at least 70 GiB that are
    not A100s); the first entry whose conditions the card meets applies."""

    engine: str
    max_running_requests: int = Field(gt=0)
    max_batched_tokens: int | None = Field(default=None, gt=0)
    min_memory_gb: NonNegativeFloat = 0.0
    unless_name_contains: str | None = None
    """The entry does not apply to a card whose name contains this (case-insensitive)."""
    built_before: dt.date | None = None
    """The entry applies only to engine builds older than this date (a measurement's build);
    current builds skip it."""


class KvReadCost(Sourced):
    """What reading a quantized KV cache costs a decode step, as a multiple of its bytes, where
    the engine's attention kernel does not turn the smaller cache into a faster read: an FP8
    cache whose kernel dequantizes each element on the way in runs no faster than the 16-bit
    cache (factor 2: as many seconds as twice its bytes)."""

    engine: str
    backend: str
    kv_dtype: str
    factor: PositiveFloat
    built_before: dt.date | None = None
    """Only builds older than this date (a measurement's build); current builds skip it."""


class StepLaunch(Sourced):
    """Whether an engine launches a decode step as captured CUDA graphs (one launch for the
    whole step) or kernel by kernel from Python (eager): the fixed cost per layer differs by
    several times, so the overheads pool by this class before pooling across all engines."""

    engine: str
    cuda_graphs: bool
    eager_era: str | None = None
    """The engine's era label to use when the user turns graphs off (`--enforce-eager`)."""
    prefill_graphs: bool = False
    """Whether prompt (and mixed) steps are captured too (vLLM V1's piecewise graphs); most
    engines capture decode batches only, so a prompt's forward pays the eager launch cost."""
    mixed_steps: bool = False
    """Whether one step carries prompt chunks beside the running requests' decode tokens (vLLM
    V1's scheduler): a compute-bound prompt chunk and the memory-bound decode share the step's
    weight reads, so a serving cycle costs about the larger of the two, not their sum."""


class HalfAccumulate(Sourced):
    """Speed-up of FP16 GEMMs that accumulate in FP16 over the catalog's FP32-accumulate rate."""

    vendor: str
    gpu_class: str
    architectures: list[str]
    factor: PositiveFloat


class TrainEfficiency(Sourced):
    """Share of the achievable matmul rate (matmul_fraction × dense BF16 peak) training reaches."""

    mode: Literal["full", "lora", "qlora", "freeze", "any"]
    architecture: str = "any"
    precision: Literal["16-bit", "fp8", "any"] = "any"
    """The GEMM precision class: FP8 training reaches another share of its (higher) peak."""
    model_kind: Literal["dense", "moe", "any"] = "any"
    """A mixture of experts spends part of its step routing and permuting tokens and in grouped
    expert GEMMs, which a dense model's share does not describe."""
    matmul_utilisation: float = Field(gt=0, le=1)
    calibrated_on: list[str] = Field(default_factory=list)


Execution = Literal["eager", "compiled", "fused", "framework"]
"""How a training step's non-GEMM work runs: eager PyTorch (one kernel per operator, Hugging Face
Trainer/PEFT, LLaMA-Factory), compiled (torch.compile fuses the elementwise chains, torchtune
with compile=True), hand-fused kernels patched into an eager loop (Liger, Unsloth), or a
framework built on fused kernels throughout (Megatron, NeMo, MindFormers)."""


class TrainExecution(Sourced):
    """Throughput of a training step run one way over the same step run eagerly.

    The fitted training utilisations are eager-equivalent (each measurement's share divided by
    its run's speed-up); an estimate multiplies them back by its own run's speed-up. `low` and
    `high` are the range the published comparisons span."""

    id: Execution
    speedup: float = Field(ge=1)
    low: float = Field(ge=1)
    high: float = Field(ge=1)


class MatmulFraction(Sourced):
    """Measured maximum achievable matmul throughput as a fraction of the dense peak."""

    architecture: str
    fraction: float = Field(gt=0, le=1)


class ArchitectureGeneration(Sourced):
    """Which architecture a newer one succeeds in its vendor's line (Blackwell follows
    Hopper): where a newer one has no training measurement of its own, its predecessor's
    share is the nearer guess than the pooled one (estimate/speed_constants.py)."""

    architecture: str
    follows: str


class ErrorBand(Sourced):
    """How far published measurements fell from gpuwise's estimate when their source was left
    out of the fit: the 10th and 90th percentiles of measured ÷ estimated, for one kind of
    figure (decode, prefill, serving, train, vram), engine and card class ("any": pooled). An
    estimate E is then read as "between E × p10 and E × p90 for 8 in 10 such setups".
    Written by benchmarks/calibrate_speed.py (data/speed_band.toml), never by hand."""

    kind: Literal["decode", "prefill", "serving", "train", "vram"]
    engine: str = "any"
    card_class: str = "any"
    p10: PositiveFloat
    p90: PositiveFloat
    cases: int = Field(gt=0)


class PowerScaling(Sourced):
    """How a card's sustained tensor rate follows its board power (estimate/power.py).

    A card that has fewer watts per dense 16-bit tensor TFLOP than the full-power data-centre
    part of its SM version cannot hold its boost clock through long GEMMs: it runs at
    (its W/TFLOP ÷ the reference's) ** `clock_power_exponent` of its datasheet peak.
    """

    clock_power_exponent: float = Field(gt=0, le=1)
    reference_class: Literal["datacenter", "workstation", "consumer"] = "datacenter"


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


class FitSettings(Sourced):
    """Anchors and pooling strengths of the calibration fit (estimate/speed_fit.py).

    Priors hold where no measurement exists; `pooling_cases` is how many cases' worth of weight
    a parent value (an engine's, or every engine's) carries against a group's own cases. A case
    informs a prefill or training share only when compute is at least `compute_share_min` of
    its time.
    """

    decode_bandwidth_fraction: float = Field(gt=0, le=1)
    decode_overhead_ms_per_layer: NonNegativeFloat
    dequant_flops_per_weight: NonNegativeFloat
    prefill_fraction: float = Field(gt=0, le=1)
    train_matmul_utilisation: float = Field(gt=0, le=1)
    decode_bandwidth_fraction_max: float = Field(gt=0, le=1)
    compute_share_min: float = Field(ge=0, lt=1)
    pooling_cases: PositiveFloat
    prior_cases: PositiveFloat


SPEED_KINDS: dict[str, type[BaseModel]] = {
    "decode_efficiency": DecodeEfficiency,
    "decode_overhead": DecodeOverhead,
    "dequant_cost": DequantCost,
    "prefill_efficiency": PrefillEfficiency,
    "kernel_path": KernelPath,
    "engine_era": EngineEra,
    "half_accumulate": HalfAccumulate,
    "engine_scheduler": EngineScheduler,
    "kv_read_cost": KvReadCost,
    "error_band": ErrorBand,
    "step_launch": StepLaunch,
    "train_efficiency": TrainEfficiency,
    "train_execution": TrainExecution,
    "matmul_fraction": MatmulFraction,
    "architecture_generation": ArchitectureGeneration,
    "link_model": LinkModel,
    "host_memory": HostMemory,
    "fit_settings": FitSettings,
    "power_scaling": PowerScaling,
}
