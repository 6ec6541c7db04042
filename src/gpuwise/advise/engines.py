"""Which engine runs the workload on a card, and which weight formats it may use there.

The engine follows the job and the card's software stack (vLLM serves where the stack runs it,
llama.cpp on Apple, Ollama for local chat, transformers for fine-tuning); the formats are the
planner's ladder (16-bit first) filtered by the engine × architecture support table
(catalog/data/compat/precision.toml), so a configuration the engine cannot run on that card is
never sized, priced or ranked.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpuwise.advise.scenario import Scenario
from gpuwise.catalog.precision import SupportVerdict, format_support, weight_format_key
from gpuwise.catalog.schema import Gpu, LlmModel
from gpuwise.catalog.schema_precision import PrecisionSupport
from gpuwise.errors import UserError
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.speed_keys import kernel_arch
from gpuwise.i18n import t

SERVE_QUANTS = ("bf16", "fp16", "fp8", "int8-w8a8", "int8-gptq", "int4-awq", "int4-gptq")
"""Serving formats, least compressed first (fp16 stands in where the card has no bf16). INT8
W8A8 is the 8-bit format of cards without FP8 units (Ascend 910B, Ampere): the same memory as
FP8, its GEMMs on INT8 tensor cores (blind w15-04: Ascend's msModelSlim W8A8 was never tried)."""
LOCAL_QUANTS = ("q8_0", "q6_k", "q5_k_m", "q4_k_m", "q3_k_m")
"""GGUF files people pull for local chat, largest first."""
POOLING_QUANTS = ("bf16", "fp16")
"""Embedders and rerankers are served in 16 bits: Text Embeddings Inference, vLLM's pooling
runner and sentence-transformers load them in fp16/bf16 (a small model gains little memory
from fewer bits and loses retrieval quality)."""
POOLING_GGUF = ("f16-gguf", "q8_0")
"""Embedding GGUF files (Ollama's bge-m3 and embedding tags ship F16), 8-bit at the least."""
TRAIN_FLOAT = ("bf16", "fp16")
"""Mixed precision for full and LoRA training: bf16 where the card has it, else fp16."""
RUNNABLE = ("yes", "partial")


@dataclass(frozen=True)
class EngineChoice:
    """The engine for one card and the formats to try on it, with their support verdicts."""

    engine: str
    quants: tuple[str, ...]
    verdicts: dict[str, SupportVerdict] = field(default_factory=dict)
    refused: tuple[tuple[str, SupportVerdict], ...] = ()
    requantized_from: str | None = None
    """The shipped format no format of it runs on this card in: the formats tried are those of
    a re-quantized copy (blind w49-01: DeepSeek-V4-Flash's MXFP4 experts on Ascend, which
    vllm-ascend serves from a W8A8 copy), said as a risk."""


def stack_of(gpu: Gpu) -> str:
    """The card's first software stack name (cuda, rocm, cann, metal, …), 'other' if none."""
    names = gpu.stack.names()
    return names[0] if names else "other"


def default_engine(s: Scenario, gpu: Gpu, features: dict[tuple[str, str], str]) -> str:
    """The scenario's engine, else the usual one for the job on this stack."""
    w = s.workload
    if w.engine:
        return w.engine
    stack = stack_of(gpu)
    if w.kind == "train":
        return "transformers"
    if w.kind == "local":  # local chat runs GGUF files: Ollama, else llama.cpp's own backends
        return "ollama" if features.get((stack, "ollama")) in RUNNABLE else "llama.cpp"
    if stack == "metal":
        return "llama.cpp"
    return "vllm" if features.get((stack, "vllm")) in RUNNABLE else "transformers"


GGUF_ENGINES = ("ollama", "llama.cpp")


def ladder(
    s: Scenario, engine: str, tag_quant: str | None, pooling: bool = False
) -> tuple[str, ...]:
    """Formats to try in order: the scenario's alone; the Ollama tag's file where the engine
    runs Ollama's files; else the ladder (an Ollama tag served by vLLM names only the model).
    An embedder or reranker (`pooling`) is served in 16 bits, never in 4-bit chat files."""
    w = s.workload
    if w.quant:
        return (w.quant,)
    if w.kind == "train":
        return ("nf4",) if w.mode == "qlora" else TRAIN_FLOAT
    if pooling:
        return POOLING_GGUF if engine in GGUF_ENGINES else POOLING_QUANTS
    if tag_quant and engine in GGUF_ENGINES:
        return (tag_quant,)
    return LOCAL_QUANTS if engine in GGUF_ENGINES else SERVE_QUANTS


def native_first(quants: tuple[str, ...], native: str, mc: MemoryConstants) -> tuple[str, ...]:
    """A checkpoint that ships quantized (gpt-oss: MXFP4 experts, an FP8 release) is served as
    shipped: its own format first, then only the ladder's formats with fewer bits per weight;
    dequantizing it to 16 bits is never the default. A format made for the model's experts
    (MXFP4) is tried alone: the engines' guides run gpt-oss from its own checkpoint, and a
    re-quantized AWQ/GPTQ copy of it is no engine's documented path."""
    try:
        own = mc.weight_format(native)
    except UserError:
        return quants
    if own.quantizes == "experts":
        return (own.id,)
    smaller = []
    for quant in quants:
        try:
            if quant != own.id and mc.weight_format(quant).bits_per_weight < own.bits_per_weight:
                smaller.append(quant)
        except UserError:
            continue
    return (own.id, *smaller)


def without_model_kernels(model: LlmModel, gpu: Gpu, choice: EngineChoice) -> EngineChoice:
    """The choice with every format refused where the model's own kernels for the engine do
    not exist on the card's architecture (LlmModel.engine_architectures, sourced)."""
    allowed = model.engine_architectures.get(choice.engine)
    arch = kernel_arch(gpu)
    if not allowed or not choice.quants or arch in allowed or " sm_" not in arch:
        return choice  # the table names CUDA SM versions; other backends are not its subject
    sources = model.engine_architectures_sources
    source = sources[0] if sources else None
    note = {"engine": choice.engine, "arch": arch, "model": model.name}
    verdict = SupportVerdict(
        support="no",
        compute=None,
        via="model",
        note_en=t("plan.model_kernels_missing", lang="en", **note),
        note_zh=t("plan.model_kernels_missing", lang="zh", **note),
        source=source,
    )
    refused = (*((q, verdict) for q in choice.quants), *choice.refused)
    return EngineChoice(choice.engine, (), {}, refused, choice.requantized_from)


GGUF_NATIVE_KINDS = ("gguf", "mxfp4")
"""Shipped formats that GGUF files keep as they are (ggml has an MXFP4 type since gpt-oss)."""


def _in_gguf(native: str, mc: MemoryConstants) -> bool:
    """Whether a GGUF file can keep the checkpoint's format (else local chat runs GGUF types)."""
    try:
        return mc.weight_format(native).kind in GGUF_NATIVE_KINDS
    except UserError:
        return False


def choose_engine(
    s: Scenario,
    gpu: Gpu,
    mc: MemoryConstants,
    rows: tuple[PrecisionSupport, ...],
    features: dict[tuple[str, str], str],
    tag_quant: str | None = None,
    native: str | None = None,
    fallback: bool = False,
    pooling: bool = False,
) -> EngineChoice:
    """The engine and the supported formats for `gpu`; unsupported ones are kept as refused.

    `native` is the format the model's checkpoint ships in (LlmModel.weight_format_hint): when
    the scenario names no format, the serving or local ladder starts there. `fallback` (a card
    the user already owns): where the usual engine runs no format on it, llama.cpp's GGUF files
    are tried, since the owner's question is how to use the card, not whether to buy it."""
    engine = default_engine(s, gpu, features)
    choice = _choose(s, gpu, mc, rows, engine, tag_quant, native, pooling)
    if not choice.quants and fallback and not s.workload.engine and s.workload.kind != "train":
        gguf = _choose(s, gpu, mc, rows, "llama.cpp", tag_quant, native, pooling)
        if gguf.quants:  # a card the user owns runs what it can (vLLM needs Volta+, Pascal
            return gguf  # runs llama.cpp): the engine is named in the option
    return choice


def _choose(
    s: Scenario,
    gpu: Gpu,
    mc: MemoryConstants,
    rows: tuple[PrecisionSupport, ...],
    engine: str,
    tag_quant: str | None,
    native: str | None,
    pooling: bool = False,
) -> EngineChoice:
    """The formats of the ladder `engine` runs on `gpu`, and those it refuses. A checkpoint
    shipped compressed is served as shipped; where the card runs none of its formats, the
    ladder's 8-bit formats are tried as a re-quantized copy (`requantized_from`)."""
    full = ladder(s, engine, tag_quant, pooling)
    quants = full
    if native and (quants == SERVE_QUANTS or (quants == LOCAL_QUANTS and _in_gguf(native, mc))):
        quants = native_first(quants, native, mc)
    verdicts, refused = _verdicts(quants, engine, gpu, mc, rows)
    requantized = None
    if native and not verdicts and quants != full:
        # 8 bits or more: re-quantizing a 4-bit checkpoint to another 4-bit format compounds
        # two roundings; to 8 bits it keeps what the checkpoint holds (vllm-ascend's W8A8 copy)
        compressed = tuple(q for q in full if 8 <= _bits(mc, q) < 16 and q != native)
        verdicts, more = _verdicts(compressed, engine, gpu, mc, rows)
        refused += more
        requantized = native if verdicts else None
    quants = tuple(verdicts)
    if "bf16" in verdicts and "fp16" in verdicts:
        quants = tuple(
            q for q in quants if q != "fp16"
        )  # the same bytes: fp16 only in bf16's place
    return EngineChoice(engine, quants, verdicts, tuple(refused), requantized)


def _bits(mc: MemoryConstants, quant: str) -> float:
    try:
        return float(mc.weight_format(quant).bits_per_weight)
    except UserError:
        return 16.0


def _verdicts(
    quants: tuple[str, ...],
    engine: str,
    gpu: Gpu,
    mc: MemoryConstants,
    rows: tuple[PrecisionSupport, ...],
) -> tuple[dict[str, SupportVerdict], list[tuple[str, SupportVerdict]]]:
    """Each format's support by `engine` on `gpu`: those it runs, and those it refuses."""
    verdicts: dict[str, SupportVerdict] = {}
    refused: list[tuple[str, SupportVerdict]] = []
    for quant in quants:
        try:
            fmt = mc.weight_format(quant)
        except UserError:
            continue
        verdict = format_support(rows, engine, gpu, weight_format_key(fmt))
        if verdict.support not in RUNNABLE and weight_format_key(fmt) == "fp8":
            # an fp8 checkpoint also runs weight-only (FP8-Marlin on Ampere): the same memory,
            # 16-bit compute
            verdict = format_support(rows, engine, gpu, "fp8-w8a16")
        if verdict.support in RUNNABLE:
            verdicts[quant] = verdict
        else:
            refused.append((quant, verdict))
    return verdicts, refused
