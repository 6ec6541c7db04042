"""Which weight/KV formats an engine runs on a given card: a pure lookup over catalog rows.

The rows (kind `precision_support`, data/compat/precision.toml) each cite the engine's own
support table. The most specific row wins: one naming the GPU id, then one naming its
architecture, then a "*" row; among equally specific rows the later one wins, so a user
override file (read after the built-in catalog) can correct a row by restating it.
No row at all means "unknown", never "yes".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from gpuwise.catalog.schema import Gpu
from gpuwise.catalog.schema_memory import KvDtype, WeightFormat
from gpuwise.catalog.schema_precision import PRECISION_FORMATS, WILDCARD, PrecisionSupport

SupportLevel = Literal["yes", "partial", "no", "unknown"]

ENGINE_EQUIVALENTS: dict[str, str] = {
    "ollama": "llama.cpp",
    "transformers-legacy": "transformers",
}
"""Engines that run another engine's kernels: Ollama's runner is llama.cpp's ggml backends
(see data/memory.toml, engine "ollama"); transformers-legacy is an older transformers."""

_WEIGHT_KIND_KEYS: dict[str, str] = {
    "bnb": "bnb-nf4",
    "int8": "bnb-int8",
    "gptq": "gptq",
    "awq": "awq",
    "fp8": "fp8",
    "w8a8": "int8-w8a8",
    "gguf": "gguf",
    "mlx": "mlx",
    "mxfp4": "mxfp4",
}
"""WeightFormat.kind → support-table format (kind "float" maps by id: fp32, bf16, fp16)."""


@dataclass(frozen=True)
class SupportVerdict:
    """The answer for one (engine, GPU, format): the winning row's facts, or "unknown"."""

    support: SupportLevel
    compute: str | None
    via: str
    note_en: str
    note_zh: str
    source: str | None

    @property
    def runs(self) -> bool:
        """True for "yes" and "partial" (usable, perhaps with a caveat in the note)."""
        return self.support in ("yes", "partial")


UNKNOWN = SupportVerdict("unknown", None, "", "", "", None)


def canonical_engine(engine: str) -> str:
    """The engine whose rows answer for `engine` (Ollama → llama.cpp)."""
    key = engine.strip().lower()
    return ENGINE_EQUIVALENTS.get(key, key)


def _specificity(row: PrecisionSupport, gpu: Gpu) -> int:
    """3: names the GPU id or its CUDA compute capability; 2: names its architecture; 1: "*";
    0: does not apply."""
    if gpu.id in row.gpus:
        return 3
    if gpu.stack.cuda_cc and gpu.stack.cuda_cc in row.cuda_cc:
        return 3
    if gpu.architecture and gpu.architecture in row.architectures:
        return 2
    if WILDCARD in row.architectures:
        return 1
    return 0


_Index = dict[tuple[str, str], list[PrecisionSupport]]
_indexes: dict[int, tuple[Sequence[PrecisionSupport], _Index]] = {}


def _index(rows: Sequence[PrecisionSupport]) -> _Index:
    """Rows grouped by (engine, format), in order; built once per row sequence.

    The planner asks thousands of questions of the same catalog tuple, so grouping once keeps
    each lookup to the handful of rows that can answer it. The cache holds the sequence itself
    and checks identity, so a reused id() never returns another sequence's index.
    """
    hit = _indexes.get(id(rows))
    if hit is not None and hit[0] is rows:
        return hit[1]
    index: _Index = {}
    for row in rows:
        for fmt in row.formats:
            index.setdefault((row.engine, fmt), []).append(row)
    if isinstance(rows, tuple):  # only immutable sequences are safe to remember
        if len(_indexes) > 8:
            _indexes.clear()
        _indexes[id(rows)] = (rows, index)
    return index


def format_support(
    rows: Sequence[PrecisionSupport], engine: str, gpu: Gpu, fmt: str
) -> SupportVerdict:
    """Whether `engine` runs format `fmt` on `gpu`, from the most specific matching row."""
    best: PrecisionSupport | None = None
    best_rank = 0
    for row in _index(rows).get((canonical_engine(engine), fmt), []):
        rank = _specificity(row, gpu)
        if rank and rank >= best_rank:  # ">=": later rows (overrides) win ties
            best, best_rank = row, rank
    if best is None:
        return UNKNOWN
    return SupportVerdict(
        support=best.support,
        compute=best.compute,
        via=best.via,
        note_en=best.note_en,
        note_zh=best.note_zh,
        source=best.source,
    )


def supported_formats(rows: Sequence[PrecisionSupport], engine: str, gpu: Gpu) -> list[str]:
    """The formats `engine` runs on `gpu` ("yes" or "partial"), in PRECISION_FORMATS order."""
    return [f for f in PRECISION_FORMATS if format_support(rows, engine, gpu, f).runs]


def weight_format_key(fmt: WeightFormat) -> str:
    """The support-table format of a memory-model weight format (data/memory.toml).

    fp32/bf16/fp16 map to themselves, "fp8" to W8A8 FP8 (callers that accept weight-only
    FP8 may also ask for "fp8-w8a16"), bitsandbytes nf4/nf4-dq to "bnb-nf4", LLM.int8 to
    "bnb-int8", every GGUF type to "gguf", MLX q4/q8 to "mlx", MXFP4 experts to "mxfp4". A float
    format outside the table (e.g. a user's "tf32") keeps its id, which then looks up as
    "unknown".
    """
    if fmt.kind == "float":
        return fmt.id
    return _WEIGHT_KIND_KEYS[fmt.kind]


def kv_format_key(kv: KvDtype) -> str | None:
    """The support-table format that gates a KV-cache dtype, or None when none is needed.

    Only FP8 KV needs engine support ("kv-fp8"); 16/32-bit KV runs wherever the model runs,
    and llama.cpp's q8_0/q4_0 KV types belong to llama.cpp alone.
    """
    names = {kv.id.lower(), *(a.lower() for a in kv.aliases)}
    return "kv-fp8" if any(n.startswith(("fp8", "f8")) for n in names) else None
