"""Ollama tags name Ollama's files, not just an architecture.

`llama3.1:70b` is the Q4_K_M GGUF Ollama serves (library models default to Q4_K_M; Ollama's API
docs show `quantization_level: Q4_K_M` for library tags), `qwen2.5:7b-instruct-q8_0` is the
Q8_0 file and `llama3.1:8b-instruct-fp16` the unquantized one. A bare name (`qwen2.5`) is the
library's default tag, listed in the catalog model's `ollama_tags`.
"""

from __future__ import annotations

import re

from gpuwise.catalog.catalog import Catalog
from gpuwise.catalog.names import normalize

LIBRARY_DEFAULT_QUANT = "q4_k_m"
_QUANT_SUFFIX = re.compile(
    r"(?:^|-)(q[2-8]_k_[sml]|q[2-8]_k|q[4-8]_[01]|iq[1-4]_[a-z]+|fp16|f16|bf16|fp32)$"
)
_GGUF_NAMES = {"fp16": "f16-gguf", "f16": "f16-gguf", "bf16": "f16-gguf", "fp32": "fp32"}


def is_ollama_name(cat: Catalog, name: str) -> bool:
    """Whether `name` is an Ollama tag some catalog model lists (or `base:size-variant` of one)."""
    tags = {normalize(t) for m in cat.models for t in m.ollama_tags}
    if normalize(name) in tags:
        return True
    base, sep, rest = name.partition(":")
    return bool(sep) and normalize(f"{base}:{rest.split('-')[0]}") in tags


def ollama_quant(cat: Catalog, name: str) -> str | None:
    """The weight format an Ollama tag names (None when `name` is not an Ollama tag)."""
    if not is_ollama_name(cat, name):
        return None
    _, _, tag = name.lower().partition(":")
    found = _QUANT_SUFFIX.search(tag)
    if found is None:
        return _shipped_quant(cat, name) or LIBRARY_DEFAULT_QUANT
    quant = found.group(1)
    return _GGUF_NAMES.get(quant, quant)


SHIPPED_KINDS = ("mxfp4",)
"""Formats Ollama's library keeps as the publisher shipped them instead of re-quantizing to
Q4_K_M: gpt-oss's tags are its MXFP4 weights ("Quantization - MXFP4 format", 14GB and 65GB,
https://ollama.com/library/gpt-oss, read 2026-12-03)."""


def _shipped_quant(cat: Catalog, name: str) -> str | None:
    """The catalog model's shipped format when Ollama's library keeps it (else None)."""
    base, _, rest = name.partition(":")
    wanted = {normalize(name), normalize(f"{base}:{rest.split('-')[0]}")}
    kinds = {w.id: w.kind for w in cat.extra("weight_format")}
    for m in cat.models:
        hint = m.weight_format_hint
        if (
            hint
            and kinds.get(hint) in SHIPPED_KINDS
            and wanted & {normalize(t) for t in m.ollama_tags}
        ):
            return hint
    return None
