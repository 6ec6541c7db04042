"""Read a GGUF file's header (architecture, shapes, tensor types and sizes) with `gguf`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gpuwise.catalog.schema import LlmModel
from gpuwise.errors import UserError


def _field(reader: Any, key: str) -> Any:
    """A scalar, string or array value of one metadata key, or None."""
    f = reader.fields.get(key)
    if f is None:
        return None
    try:
        return f.contents()
    except Exception:
        return None


def _scalar(value: Any) -> int | None:
    if isinstance(value, list):
        nums = [int(v) for v in value if isinstance(v, int | float)]
        return max(nums) if nums else None
    return int(value) if isinstance(value, int | float) else None


def _file_type_name(ftype: int | None) -> str | None:
    """llama.cpp's name of a `general.file_type` ("Q4_K_M"); the number itself when unknown."""
    from gguf import LlamaFileType

    if ftype is None:
        return None
    try:
        return LlamaFileType(ftype).name.removeprefix("MOSTLY_")
    except ValueError:
        return str(ftype)


def read_gguf(path: Path) -> LlmModel:
    """Model shapes from GGUF metadata; params and bytes from the tensor table."""
    try:
        from gguf import GGUFReader

        reader = GGUFReader(str(path), "r")
    except Exception as exc:  # the gguf package raises many kinds on a bad file
        raise UserError(
            "model.bad_gguf", path=str(path), problem=str(exc) or type(exc).__name__
        ) from exc
    arch = _field(reader, "general.architecture")
    if not isinstance(arch, str):
        raise UserError("model.bad_gguf", path=str(path), problem="no general.architecture")

    def key(name: str) -> int | None:
        return _scalar(_field(reader, f"{arch}.{name}"))

    params = sum(int(t.n_elements) for t in reader.tensors)
    weight_bytes = sum(int(t.n_bytes) for t in reader.tensors)
    heads = key("attention.head_count")
    hidden = key("embedding_length")
    layers = key("block_count")
    if not (heads and hidden and layers and params):
        raise UserError("model.bad_gguf", path=str(path), problem="missing shape metadata")
    tokens = _field(reader, "tokenizer.ggml.tokens")
    vocab = len(tokens) if isinstance(tokens, list) else 32000
    fields: dict[str, Any] = {
        "id": "local",
        "name": _field(reader, "general.name") or path.stem,
        "family": arch,
        "source": "local-file",
        "origin": "gguf",
        "params_b": params / 1e9,
        "active_params_b": params / 1e9,
        "layers": layers,
        "hidden_size": hidden,
        "intermediate_size": key("feed_forward_length")
        or key("expert_feed_forward_length")
        or 4 * hidden,
        "heads": heads,
        "kv_heads": key("attention.head_count_kv") or heads,
        "head_dim": key("attention.key_length") or hidden // heads,
        "vocab_size": vocab,
        "max_context": key("context_length") or 4096,
        "gguf_file_type": _file_type_name(_scalar(_field(reader, "general.file_type"))),
        "gguf_weight_bytes": weight_bytes,
    }
    window = key("attention.sliding_window")
    if window:
        fields["sliding_window"] = window
    try:
        return LlmModel.model_validate(fields)
    except Exception as exc:
        raise UserError("model.bad_gguf", path=str(path), problem=str(exc).splitlines()[0]) from exc
