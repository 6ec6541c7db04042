"""Models from the user's disk: a Hugging Face folder (config.json) or a GGUF file.

The numbers come from the user's own file, so the file itself is their source (a `file:` URL,
dated by its modification time).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from gpuwise.catalog.catalog import Catalog
from gpuwise.catalog.params import count_params
from gpuwise.catalog.schema import LlmModel, Source
from gpuwise.errors import UserError

if TYPE_CHECKING:  # the readers are imported when a path is read, not by every model lookup
    from gpuwise.catalog.safetensors_file import WeightFiles

_LOCAL_SOURCE = "local-file"
MAX_PARAMS = 100e12
"""Parameters a config.json may describe: 100 T, ~50× the largest open-weight models (Kimi K2
has 1 T). More means a mistyped size (hidden_size 1e9 gave 4e15 B parameters and 7.8e18 GiB,
exit 0, in the newcomer review), so it is refused rather than estimated."""


_paths_allowed: ContextVar[bool] = ContextVar("gpuwise_local_paths", default=True)


@contextlib.contextmanager
def without_local_paths() -> Iterator[None]:
    """Inside the block a model name is never a file: `gpuwise serve` and `gpuwise mcp` take
    names from requests, and no request may make gpuwise look at (or read) a path."""
    token = _paths_allowed.set(False)
    try:
        yield
    finally:
        _paths_allowed.reset(token)


def looks_like_path(name: str) -> bool:
    """True when the argument names something on disk (or clearly means to). Without local
    paths (:func:`without_local_paths`) only the spelling is read, never the disk."""
    spelled = name.endswith((".gguf", "config.json")) or name.startswith(("./", "../", "/", "~"))
    if not _paths_allowed.get():
        return spelled or "\\" in name or ".." in name
    return spelled or Path(name).exists()


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
    if not _paths_allowed.get():
        raise UserError("model.path_not_here", name=str(path))
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
    """Map a Hugging Face config.json onto the catalog's model fields.

    When the folder also holds the weights (safetensors shards, or just their index), the
    bytes they state replace the formula's, and an all-float checkpoint's tensor count replaces
    the parameter formula (they are the same numbers, read rather than derived).
    """
    from gpuwise.catalog.hf_config import fields_from_config
    from gpuwise.catalog.safetensors_file import read_folder_weights

    try:
        cfg = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise UserError("model.bad_config", path=str(path), problem=str(exc)) from exc
    if not isinstance(cfg, dict):
        raise UserError("model.bad_config", path=str(path), problem="not a JSON object")
    try:
        fields = fields_from_config(cfg, str(path))
        draft = LlmModel.model_validate(
            {
                "id": "local",
                "name": path.parent.name or str(path),
                "source": _LOCAL_SOURCE,
                "origin": "config.json",
                "params_b": 1.0,
                "active_params_b": 1.0,
                **fields,
            }
        )
    except (KeyError, TypeError, ValueError, ZeroDivisionError, ValidationError) as exc:
        problem = f"missing {exc}" if isinstance(exc, KeyError) else str(exc).splitlines()[0]
        raise UserError("model.bad_config", path=str(path), problem=problem) from exc
    return _with_counts(draft, read_folder_weights(path.parent), path)


def _with_counts(draft: LlmModel, files: WeightFiles | None, path: Path | None = None) -> LlmModel:
    """Parameter counts from the shapes, replaced by what the weight files state when known."""
    counts = count_params(draft)
    total, active = counts.total, counts.active
    if not total < MAX_PARAMS:  # also NaN
        raise UserError(
            "model.implausible_size",
            path=str(path or "config.json"),
            params=f"{total / 1e9:.3g}",
            limit=f"{MAX_PARAMS / 1e12:g}",
            fields=f"hidden_size={draft.hidden_size}, layers={draft.layers}, "
            f"intermediate_size={draft.intermediate_size}, vocab_size={draft.vocab_size}",
        )
    update: dict[str, object] = {}
    if files is not None:
        update["weight_bytes_exact"] = files.total_bytes
        exact = files.float_params
        if exact:
            active, total = exact - (total - active), exact
        from gpuwise.catalog.safetensors_file import STORED_NAMES

        stored = STORED_NAMES.get(files.main_dtype or "")
        if stored and draft.weight_dtype is None:
            update["weight_dtype"] = stored
    update.update(params_b=total / 1e9, active_params_b=min(active, total) / 1e9)
    return draft.model_copy(update=update)
