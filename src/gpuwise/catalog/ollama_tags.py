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
        return LIBRARY_DEFAULT_QUANT
    quant = found.group(1)
    return _GGUF_NAMES.get(quant, quant)
