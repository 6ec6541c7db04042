"""Models from the user's disk: a Hugging Face folder (config.json) or a GGUF file.

The numbers come from the user's own file, so the file itself is their source (a `file:` URL,
dated by its modification time).
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from gpuwise.catalog.catalog import Catalog
from gpuwise.catalog.params import count_params
from gpuwise.catalog.schema import LlmModel, Mla, Moe, Source
from gpuwise.errors import UserError

_LOCAL_SOURCE = "local-file"


def looks_like_path(name: str) -> bool:
    """True when the argument names something on disk (or clearly means to)."""
    return (
        Path(name).exists()
        or name.endswith((".gguf", "config.json"))
        or name.startswith(("./", "../", "/", "~"))
    )


def resolve_model(catalog: Catalog, name: str) -> LlmModel:
    """A catalog model by any of its names, or a model read from a local path."""
    if looks_like_path(name):
        return read_local_model(Path(name).expanduser())
    return catalog.model(name)


def local_source(path: Path) -> Source:
    """The Source record for a model read from `path`."""
    when = dt.date.fromtimestamp(path.stat().st_mtime) if path.exists() else dt.date.today()
    return Source(id=_LOCAL_SOURCE, url=path.resolve().as_uri(), title=str(path), retrieved=when)


def read_local_model(path: Path) -> LlmModel:
    """Read a config.json folder or file, or a GGUF file; bad files raise a one-line UserError."""
    if path.is_dir():
        path = path / "config.json"
    if not path.exists():
        raise UserError("model.no_such_path", path=str(path))
    if path.suffix == ".gguf" or _has_gguf_magic(path):
        from gpuwise.catalog.gguf_file import read_gguf

        return read_gguf(path)
    return read_config_json(path)


def _has_gguf_magic(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return fh.read(4) == b"GGUF"
    except OSError:
        return False


def read_config_json(path: Path) -> LlmModel:
    """Map a Hugging Face config.json onto the catalog's model fields."""
    try:
        cfg = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UserError("model.bad_config", path=str(path), problem=str(exc)) from exc
    if not isinstance(cfg, dict):
        raise UserError("model.bad_config", path=str(path), problem="not a JSON object")
    cfg = {**cfg, **cfg.get("text_config", {})} if isinstance(cfg.get("text_config"), dict) else cfg
    try:
        return _model_from_config(cfg, path)
    except (KeyError, TypeError, ValueError, ZeroDivisionError, ValidationError) as exc:
        problem = f"missing {exc}" if isinstance(exc, KeyError) else str(exc).splitlines()[0]
        raise UserError("model.bad_config", path=str(path), problem=problem) from exc


def _model_from_config(cfg: dict[str, Any], path: Path) -> LlmModel:
    heads = int(cfg["num_attention_heads"])
    hidden = int(cfg["hidden_size"])
    fields: dict[str, Any] = {
        "id": "local",
        "name": path.parent.name or str(path),
        "family": str(cfg.get("model_type", "")),
        "source": _LOCAL_SOURCE,
        "origin": "config.json",
        "params_b": 1.0,
        "active_params_b": 1.0,
        "layers": int(cfg["num_hidden_layers"]),
        "hidden_size": hidden,
        "intermediate_size": int(cfg.get("intermediate_size") or cfg["moe_intermediate_size"]),
        "heads": heads,
        "kv_heads": int(cfg.get("num_key_value_heads") or heads),
        "head_dim": int(cfg.get("head_dim") or hidden // heads),
        "vocab_size": int(cfg["vocab_size"]),
        "tied_embeddings": bool(cfg.get("tie_word_embeddings", False)),
        "max_context": int(cfg.get("max_position_embeddings") or 4096),
    }
    window = cfg.get("sliding_window")
    if window and cfg.get("use_sliding_window", True):
        fields["sliding_window"] = int(window)
        types = cfg.get("layer_types")
        if isinstance(types, list):
            fields["sliding_window_layers"] = sum(1 for x in types if "sliding" in str(x))
    if cfg.get("kv_lora_rank"):
        fields["mla"] = Mla(
            kv_lora_rank=cfg["kv_lora_rank"],
            qk_rope_head_dim=cfg["qk_rope_head_dim"],
            qk_nope_head_dim=cfg["qk_nope_head_dim"],
            v_head_dim=cfg["v_head_dim"],
            q_lora_rank=cfg.get("q_lora_rank") or 0,
        )
    experts = cfg.get("n_routed_experts") or cfg.get("num_experts") or cfg.get("num_local_experts")
    if experts:
        dense = int(cfg.get("first_k_dense_replace") or 0)
        fields["moe"] = Moe(
            experts=experts,
            active_experts=cfg.get("num_experts_per_tok") or cfg.get("experts_per_token") or 1,
            shared_experts=int(
                cfg.get("n_shared_experts")
                or (1 if cfg.get("shared_expert_intermediate_size") else 0)
            ),
            expert_intermediate_size=cfg.get("moe_intermediate_size")
            or fields["intermediate_size"],
            moe_layers=fields["layers"] - dense,
            shared_expert_intermediate_size=cfg.get("shared_expert_intermediate_size") or 0,
        )
    draft = LlmModel.model_validate(fields)
    counts = count_params(draft)
    return draft.model_copy(
        update={"params_b": counts.total / 1e9, "active_params_b": counts.active / 1e9}
    )
