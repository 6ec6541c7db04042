"""Read the built-in catalog and the user's overrides, validate, and cache the result.

Files are TOML (docs/catalog-format.md). Every problem becomes a :class:`CatalogError` naming the
file, the line and the field, in the user's language. The validated catalog is pickled in the
user cache directory, keyed by the files' sizes and times, so start-up stays fast.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from gpuwise.catalog.files import (  # noqa: F401  (re-exported for callers of load)
    SCHEMA_VERSION,
    builtin_dir,
    builtin_files,
    cache_path,
    fingerprint,
    load_cached,
    override_dir,
    override_files,
    store_cached,
)
from gpuwise.catalog.raw import RawCatalog, RawEntry
from gpuwise.catalog.schema import Gpu, LlmModel, Source
from gpuwise.catalog.schema_cloud import HiddenCosts, Offer, Provider
from gpuwise.catalog.schema_extra import EXTRA_KINDS
from gpuwise.catalog.sourcing import flatten_source_tables, lift_sources, locate_line
from gpuwise.errors import CatalogError

ARRAY_KINDS: dict[str, type[BaseModel]] = {"gpu": Gpu, "model": LlmModel, "offer": Offer}
SINGLE_KINDS: dict[str, type[BaseModel]] = {"provider": Provider, "hidden_costs": HiddenCosts}
_META_KEYS = {"sources", "schema"}


def read_toml(path: Path) -> tuple[dict[str, Any], str]:
    """Parse one file (gpuwise.userfiles: encodings, size, nesting); a syntax error names the
    file and line; NaN, infinity and out-of-range prices, TFLOPS or bandwidth are refused."""
    from gpuwise.catalog.guard import check_numbers  # units: only when files are read
    from gpuwise.userfiles import DATA_MAX_BYTES, parse, read_text

    key = _shipped_key(path)
    if key in _SHIPPED_READ:
        return _SHIPPED_READ[key]
    text = read_text(path, CatalogError, limit=DATA_MAX_BYTES)  # feeds and imports are large
    data = parse(text, path, "toml", CatalogError)
    check_numbers(data, path, text)
    if key is not None:
        _SHIPPED_READ[key] = (data, text)
    return data, text


_SHIPPED_READ: dict[tuple[str, int, int], tuple[dict[str, Any], str]] = {}
"""The shipped catalog's files as read, by path, size and time: a process that builds the
catalog again (a user file added or checked, a price feed stored) parses them once. Nothing
changes what read_files returns from them (entries are validated into new objects)."""


def _shipped_key(path: Path) -> tuple[str, int, int] | None:
    """The memo key of a file of the shipped catalog (never a user's, a feed's or a
    GPUWISE_DATA_DIR's file: those may change under the same size and time)."""
    from gpuwise.catalog.files import _DATA_DIR

    if not path.is_relative_to(_DATA_DIR):
        return None
    try:
        st = path.stat()
    except OSError:
        return None
    return (str(path), st.st_size, st.st_mtime_ns)


def read_files(paths: Iterable[Path], raw: RawCatalog | None = None) -> RawCatalog:
    """Read files into a raw catalog: sources, then entries of every known kind."""
    raw = raw or RawCatalog()
    for path in paths:
        data, text = read_toml(path)
        _check_schema(data, path)
        for key, value in flatten_source_tables(data.get("sources", {})).items():
            _add_source(raw, key, value, path, text)
        provider_id = str(data.get("provider", {}).get("id", ""))
        for key, value in data.items():
            if key in _META_KEYS:
                continue
            if key in SINGLE_KINDS and isinstance(value, dict):
                raw.entries.append(
                    RawEntry(key, value, str(path), 0, text, {"provider": provider_id})
                )
            elif (key in ARRAY_KINDS or key in EXTRA_KINDS) and isinstance(value, list):
                for i, item in enumerate(value):
                    ctx = {"provider": provider_id}
                    raw.entries.append(RawEntry(key, item, str(path), i, text, ctx))
            elif key in EXTRA_KINDS and isinstance(value, dict):
                raw.entries.append(RawEntry(key, value, str(path), 0, text, {}))
            else:
                line = locate_line(text, key, 0, None)
                raise CatalogError("catalog.unknown_table", file=str(path), line=line, table=key)
    return raw


def _check_schema(data: dict[str, Any], path: Path) -> None:
    schema = data.get("schema", SCHEMA_VERSION)
    if schema != SCHEMA_VERSION:
        raise CatalogError(
            "catalog.schema_mismatch", file=str(path), found=schema, expected=SCHEMA_VERSION
        )


def _add_source(raw: RawCatalog, key: str, value: Any, path: Path, text: str) -> None:
    if key in raw.sources and raw.source_files.get(key) != str(path):
        raise CatalogError(
            "catalog.duplicate_source", file=str(path), source=key, other=raw.source_files[key]
        )
    try:
        raw.sources[key] = Source.model_validate({"id": key, **value})
    except (ValidationError, TypeError) as exc:
        line = locate_line(text, f"sources.{key}", 0, None)
        field_name, problem = _first_problem(exc)
        raise CatalogError(
            "catalog.invalid_entry",
            file=str(path),
            line=line,
            field=f"sources.{key}.{field_name}",
            problem=problem,
        ) from exc
    raw.source_files[key] = str(path)


def _first_problem(exc: Exception) -> tuple[str, str]:
    """Field path and a short reason from a pydantic error (or any other)."""
    if isinstance(exc, ValidationError) and exc.errors():
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        from gpuwise.i18n import t

        if err["type"] == "value_error":
            # Our validators raise ValueError(<message key>); pydantic prefixes "Value error, ".
            key = str(err["msg"]).removeprefix("Value error, ")
            return loc, t(key)
        reason_key = f"pydantic.{err['type']}"
        reason = t(reason_key)
        return loc, (err["msg"] if reason == reason_key else reason)
    return "", str(exc)


def validate_remembered(entry: RawEntry, model: type[BaseModel]) -> BaseModel:
    """validate_entry, once a process for an entry of the shipped catalog as read (the very
    dict _SHIPPED_READ keeps, in the same context): every catalog model is frozen, so the
    catalogs built again with a user's file share those entries. Merged or user entries are
    validated every time."""
    from gpuwise.catalog.files import _DATA_DIR

    if not entry.file.startswith(f"{_DATA_DIR}{os.sep}"):
        return validate_entry(entry, model)
    key = (id(entry.data), model, tuple(sorted(entry.context.items())))
    hit = _SHIPPED_VALID.get(key)
    if hit is not None and hit[0] is entry.data:
        return hit[1]
    obj = validate_entry(entry, model)
    _SHIPPED_VALID[key] = (entry.data, obj)
    return obj


_SHIPPED_VALID: dict[tuple[object, ...], tuple[dict[str, Any], BaseModel]] = {}


def validate_entry(entry: RawEntry, model: type[BaseModel]) -> BaseModel:
    """Lift sources, fill the default source and validate; errors name file, line and field."""
    flat, field_sources = lift_sources(entry.data)
    fields = model.model_fields
    if "provider" in fields and entry.context.get("provider") and "provider" not in flat:
        flat["provider"] = entry.context["provider"]
    if "origin" in fields and entry.context.get("origin"):
        flat["origin"] = entry.context["origin"]
    if "source" in fields and "source" not in flat and entry.context.get("default_source"):
        flat["source"] = entry.context["default_source"]
    if "field_sources" in fields:
        flat["field_sources"] = field_sources
    try:
        return model.model_validate(flat)
    except ValidationError as exc:
        field_name, problem = _first_problem(exc)
        line = locate_line(entry.text, entry.kind, entry.index, field_name or None)
        where = entry.data.get("id") or entry.data.get("instance") or entry.index + 1
        raise CatalogError(
            "catalog.invalid_entry",
            file=entry.file,
            line=line,
            field=f"{entry.kind}[{where}].{field_name}",
            problem=problem,
        ) from exc
