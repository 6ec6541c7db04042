"""Exact weight bytes and parameter counts from a model folder's safetensors files.

A safetensors file starts with an 8-byte little-endian header length N, then N bytes of JSON
mapping each tensor name to {"dtype", "shape", "data_offsets"} (plus an optional
"__metadata__"); the tensor data follows (https://github.com/huggingface/safetensors, format
section). Reading the header alone gives every tensor's dtype and shape without touching the
data. A sharded checkpoint's `model.safetensors.index.json` states `metadata.total_size`, the
bytes of all shards' tensors.
"""

from __future__ import annotations

import json
import re
import struct
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpuwise.errors import UserError

# Bits per element of each safetensors dtype (the format's Dtype enum).
DTYPE_BITS: dict[str, int] = {
    "BOOL": 8,
    "U8": 8,
    "I8": 8,
    "F8_E4M3": 8,
    "F8_E5M2": 8,
    "F8_E8M0": 8,
    "I16": 16,
    "U16": 16,
    "F16": 16,
    "BF16": 16,
    "I32": 32,
    "U32": 32,
    "F32": 32,
    "I64": 64,
    "U64": 64,
    "F64": 64,
    "F4": 4,
    "F6_E2M3": 6,
    "F6_E3M2": 6,
}
_FLOAT = frozenset(("F16", "BF16", "F32", "F64", "F8_E4M3", "F8_E5M2"))
_MAX_HEADER = 100_000_000  # the reference implementation refuses headers over 100 MB


@dataclass(frozen=True)
class WeightFiles:
    """What a folder's weight files say: bytes, elements by dtype, and where it came from."""

    total_bytes: int
    elements_by_dtype: dict[str, int] = field(default_factory=dict)
    bytes_by_dtype: dict[str, int] = field(default_factory=dict)
    source: str = "safetensors"

    @property
    def float_params(self) -> int | None:
        """Parameter count when every tensor is a float (a quantized file packs ints: None)."""
        if not self.elements_by_dtype or set(self.elements_by_dtype) - _FLOAT:
            return None
        return sum(self.elements_by_dtype.values())

    @property
    def main_dtype(self) -> str | None:
        """The dtype holding most bytes (BF16, F8_E4M3, …)."""
        if not self.bytes_by_dtype:
            return None
        return max(self.bytes_by_dtype.items(), key=lambda kv: kv[1])[0]


def read_header(path: Path) -> dict[str, Any]:
    """The JSON header of one safetensors file (tensor data is never read)."""
    try:
        with path.open("rb") as fh:
            raw = fh.read(8)
            if len(raw) < 8:
                raise ValueError("shorter than the 8-byte header length")
            (length,) = struct.unpack("<Q", raw)
            if length > _MAX_HEADER:
                raise ValueError(f"header length {length} is implausible")
            text = fh.read(length)
            if len(text) < length:
                raise ValueError("header is cut short")
        header = json.loads(text.decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise UserError("model.bad_safetensors", path=str(path), problem=str(exc)) from exc
    if not isinstance(header, dict):
        raise UserError("model.bad_safetensors", path=str(path), problem="header is not an object")
    return header


def _tally(header: dict[str, Any], path: Path) -> tuple[Counter[str], Counter[str]]:
    elements: Counter[str] = Counter()
    nbytes: Counter[str] = Counter()
    for name, info in header.items():
        if name == "__metadata__":
            continue
        try:
            dtype = str(info["dtype"])
            count = 1
            for dim in info["shape"]:
                count *= int(dim)
            start, end = (int(x) for x in info["data_offsets"])
        except (KeyError, TypeError, ValueError) as exc:
            raise UserError(
                "model.bad_safetensors", path=str(path), problem=f"tensor {name}: {exc}"
            ) from exc
        elements[dtype] += count
        nbytes[dtype] += end - start
    return elements, nbytes


def read_safetensors(paths: list[Path]) -> WeightFiles:
    """Sum the headers of every shard: bytes and elements per dtype."""
    elements: Counter[str] = Counter()
    nbytes: Counter[str] = Counter()
    for path in paths:
        e, b = _tally(read_header(path), path)
        elements.update(e)
        nbytes.update(b)
    return WeightFiles(sum(nbytes.values()), dict(elements), dict(nbytes), "safetensors")


def read_index(path: Path) -> WeightFiles:
    """`metadata.total_size` of a sharded checkpoint's index (model.safetensors.index.json)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        total = int(data["metadata"]["total_size"])
    except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
        raise UserError("model.bad_index", path=str(path), problem=str(exc)) from exc
    return WeightFiles(total, source="index")


_SHARD = re.compile(r"-(\d+)-of-(\d+)\.safetensors$")


def read_folder_weights(folder: Path) -> WeightFiles | None:
    """Headers of the folder's *.safetensors when all shards are there, else the index total.

    A download in progress must not pass for the whole model: without an index, shards named
    `…-0000k-of-0000N.safetensors` must all be present.
    """
    shards = sorted(folder.glob("*.safetensors"))
    index = folder / "model.safetensors.index.json"
    names = {p.name for p in shards}
    expected = _indexed_shards(index) if index.exists() else _named_shards(names)
    if shards and (expected is None or expected <= names):
        return read_safetensors(shards)
    if index.exists():
        return read_index(index)
    return None


def _named_shards(names: set[str]) -> set[str] | None:
    """Every shard the `-k-of-N` names promise (None when the files are not named so)."""
    for name in names:
        m = _SHARD.search(name)
        if m:
            width, n = len(m.group(2)), int(m.group(2))
            stem = name[: m.start()]
            return {f"{stem}-{k:0{width}d}-of-{m.group(2)}.safetensors" for k in range(1, n + 1)}
    return None


def _indexed_shards(index: Path) -> set[str] | None:
    try:
        data = json.loads(index.read_text(encoding="utf-8"))
        return {str(v) for v in data["weight_map"].values()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


# safetensors dtype → the name gpuwise shows for the stored format.
STORED_NAMES: dict[str, str] = {
    "BF16": "bf16",
    "F16": "fp16",
    "F32": "fp32",
    "F8_E4M3": "fp8",
    "F8_E5M2": "fp8",
}
