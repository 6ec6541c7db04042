"""One reading of a model name, for every command (estimate, fit, plan, record, bench, models).

A name is a catalog model (`llama-3.1-70b`, `meta-llama/Llama-3.1-70B-Instruct`), a path on disk
(a config.json folder or a GGUF file), or an Ollama tag (`llama3.1:70b`). An Ollama tag names
Ollama's *file*: `llama3.1:70b` is the Q4_K_M GGUF Ollama serves, so where that file is what runs
— inference with no engine named, or on Ollama or llama.cpp — the tag's format is the weight
format, unless `--quant` says otherwise. Training (a GGUF file cannot be trained) and other
engines (vLLM serves the Hugging Face weights) read the tag as the model only.

`estimate` and `fit` used to read `llama3.1:70b` as bf16 weights (131 GiB: no single card) while
`plan` read it as the 40 GiB Q4_K_M file (newcomer review #7); every command now asks this
module, and says the reading in its output (:meth:`ModelReading.note`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from gpuwise.catalog.catalog import Catalog
from gpuwise.catalog.local import looks_like_path, read_local_model
from gpuwise.catalog.ollama_tags import is_ollama_name, ollama_quant
from gpuwise.catalog.schema import LlmModel
from gpuwise.errors import UserError

TAG_FILE_ENGINES = ("ollama", "llama.cpp")
"""Engines that run Ollama's GGUF files, where a tag's format is the weights' format."""


@dataclass(frozen=True)
class ModelReading:
    """What a model name means: the model, how the name was read, the file a tag names."""

    name: str
    model: LlmModel
    kind: Literal["catalog", "ollama", "path"]
    tag_quant: str | None = None  # the weight format an Ollama tag's file has

    def tag_applies(self, training: bool, engine: str | None) -> bool:
        """Whether the tag's file is what runs: inference, on no named engine or a GGUF one."""
        return (
            self.kind == "ollama"
            and self.tag_quant is not None
            and not training
            and (engine is None or engine.lower() in TAG_FILE_ENGINES)
        )

    def quant(self, training: bool, engine: str | None, quant: str | None) -> str | None:
        """The weight format to use: `--quant`, else the tag's file where it runs, else None
        (the model's own default)."""
        if quant:
            return quant
        return self.tag_quant if self.tag_applies(training, engine) else None

    def engine(self, training: bool, engine: str | None, quant: str | None) -> str | None:
        """The engine: the one named, else Ollama when it is Ollama's file that runs."""
        if engine is None and not quant and self.tag_applies(training, None):
            return "ollama"
        return engine

    def note(
        self, training: bool, engine: str | None, quant: str | None
    ) -> tuple[str, dict[str, Any]] | None:
        """The reading in words (a message key and its parameters), None for a plain name."""
        if self.kind != "ollama" or self.tag_quant is None:
            return None
        params: dict[str, Any] = {"name": self.name, "tag_quant": self.tag_quant}
        if training:
            return "model.reading.ollama_train", {**params, "model": self.model.id}
        if engine is not None and engine.lower() not in TAG_FILE_ENGINES:
            return "model.reading.ollama_engine", {**params, "engine": engine}
        if quant and quant.lower() != self.tag_quant:
            return "model.reading.ollama_quant_given", {**params, "quant": quant}
        return "model.reading.ollama_file", params

    def as_dict(self, training: bool, engine: str | None, quant: str | None) -> dict[str, Any]:
        """JSON shape (`reading` in estimate, fit, record and models show)."""
        note = self.note(training, engine, quant)
        return {
            "name": self.name,
            "kind": self.kind,
            "model": self.model.id,
            "tag_quant": self.tag_quant,
            "quant": self.quant(training, engine, quant),
            "note": None if note is None else {"key": note[0], "params": note[1]},
        }


CHECKPOINT_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("-fp8-dynamic", "fp8"),
    ("-fp8-block", "fp8"),
    ("-fp8", "fp8"),
    ("-awq", "int4-awq"),
    ("-gptq-int4", "int4-gptq"),
    ("-gptq-int8", "int8-gptq"),
    ("-quantized.w8a8", "int8-w8a8"),
    ("-w8a8", "int8-w8a8"),
    ("-bnb-4bit", "nf4"),
)
"""How Hugging Face repositories name a quantized copy of a model (Qwen's `-FP8`, `-AWQ`,
`-GPTQ-Int4`; Red Hat's `-FP8-dynamic` and `-quantized.w8a8`; Unsloth's `-bnb-4bit`), and the
catalog weight format each holds."""


def _checkpoint_format(name: str) -> tuple[str, str] | None:
    """(the base repository, the weight format) of a repository id naming a quantized copy."""
    if "/" not in name:
        return None
    low = name.lower()
    for suffix, fmt in CHECKPOINT_SUFFIXES:
        if low.endswith(suffix):
            return name[: -len(suffix)], fmt
    return None


def _as_stored(cat: Catalog, name: str) -> LlmModel | None:
    """The model a quantized checkpoint's repository id names, its weights in that format
    (a user who names `Qwen/Qwen3-235B-A22B-FP8` loads 8-bit weights, not bf16 ones: blind
    w48-01); None for another name. One object per catalog, so memos keyed by the model hold."""
    found = _checkpoint_format(name)
    if found is None:
        return None
    base, fmt = found
    try:
        model = cat.model(name)
    except UserError:
        try:
            model = cat.model(base)
        except UserError:
            return None  # the plain lookup of `name` says what is unknown
    return cat.derived(
        ("checkpoint", model.id, fmt),
        lambda: model.model_copy(
            update={
                "weight_format_hint": fmt,
                "hint_rest_bits": None,
                "weight_bytes_exact": None,  # the sizes of other files than these
                "weight_dtype": None,
            }
        ),
    )


def read_model_name(cat: Catalog, name: str) -> ModelReading:
    """The one reading of `name` (a path, an Ollama tag, a quantized checkpoint's repository
    id, or any catalog name of a model)."""
    if looks_like_path(name):
        return ModelReading(name, read_local_model(Path(name).expanduser()), "path")
    stored = _as_stored(cat, name)
    if stored is not None:
        return ModelReading(name, stored, "catalog")
    model = cat.model(name)
    if is_ollama_name(cat, name):
        return ModelReading(name, model, "ollama", ollama_quant(cat, name))
    return ModelReading(name, model, "catalog")
