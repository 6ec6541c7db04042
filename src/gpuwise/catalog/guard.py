"""Checks on catalog files that the per-entry schemas cannot make.

- Numbers: no NaN or infinity anywhere (TOML has `nan` and `inf`), and the fields named in
  :data:`gpuwise.units.QUANTITIES` (prices, TFLOPS, bandwidth, memory, watts) within their range.
- One file never defines the same entry twice (the second would silently merge into the first).
- An override file never takes over another entry's name or alias: a new card aliased "4090"
  would capture `estimate --gpu 4090` while `gpus show 4090` still shows the real card.
- A number in an override file carries its own source: merged over a built-in entry it would
  otherwise be shown under the built-in entry's source, which never said it.

Every problem is a CatalogError naming the file, the line and the field.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from gpuwise import units
from gpuwise.catalog.names import normalize
from gpuwise.catalog.providers import provider_key
from gpuwise.catalog.raw import RawEntry
from gpuwise.catalog.sourcing import is_sourced_number, locate_line
from gpuwise.errors import CatalogError, UserError

NAME_FIELDS: dict[str, tuple[str, ...]] = {
    "gpu": ("id", "name", "aliases"),
    "model": ("id", "name", "aliases", "hf_repos", "ollama_tags"),
    "provider": ("id", "name_en", "name_zh", "aliases"),
}
"""The fields users look entries up by (see Catalog.gpu / Catalog.model)."""

_NOT_NUMBERS = {"schema"}


def _leaves(value: Any, path: str) -> Iterator[tuple[str, Any, bool]]:
    """(field path, value, sourced) for every scalar under `value`; sourced: inside
    `{value = …, source = …}`."""
    if is_sourced_number(value):
        yield path, value["value"], "source" in value
    elif isinstance(value, dict):
        for key, inner in value.items():
            yield from _leaves(inner, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            yield from _leaves(inner, f"{path}[{i}]")
    else:
        yield path, value, False


def _line(text: str, field: str) -> int:
    """Line of `field` (`gpu[3].tflops.bf16`, `hidden_costs.egress_per_gb`) in a TOML text."""
    m = re.match(r"^(\w+)(?:\[(\d+)\])?\.(.+)$", field)
    if not m:
        return locate_line(text, field, 0, None)
    inner = re.sub(r"\[\d+\]", "", m.group(3))
    return locate_line(text, m.group(1), int(m.group(2) or 0), inner)


def check_numbers(data: dict[str, Any], path: Path, text: str) -> None:
    """Every number in one parsed file is finite and, for known fields, within its range."""
    for field, value, _ in _leaves(data, ""):
        if field in _NOT_NUMBERS or isinstance(value, bool) or not isinstance(value, int | float):
            continue
        quantity = units.catalog_quantity(re.sub(r"\[\d+\]", "", field))
        problem: str | None = None
        if isinstance(value, float) and not math.isfinite(value):
            problem = UserError("units.finite_only", value=str(value)).render()
        elif quantity:
            try:
                units.check(float(value), quantity, "value", str(value))
            except UserError as exc:
                problem = exc.render()
        if problem:
            raise CatalogError(
                "catalog.invalid_entry",
                file=str(path),
                line=_line(text, field),
                field=field,
                problem=problem,
            )


def check_duplicates(entries: Iterable[RawEntry], key: Callable[[RawEntry], str | None]) -> None:
    """No file defines the same entry (same kind and key) twice."""
    seen: dict[tuple[str, str, str], int] = {}
    for e in entries:
        k = key(e)
        if not k or e.kind == "provider":
            continue
        slot = (e.file, e.kind, k)
        if slot in seen:
            raise CatalogError(
                "catalog.duplicate_entry",
                file=e.file,
                line=locate_line(e.text, e.kind, e.index, None),
                kind=e.kind,
                name=k,
                first=locate_line(e.text, e.kind, seen[slot], None),
            )
        seen[slot] = e.index


def is_override(file: str, folder: Path) -> bool:
    """Whether a catalog file is one of the user's overrides."""
    try:
        return Path(file).resolve().is_relative_to(folder.resolve())
    except OSError:
        return False


def check_sources(entries: Iterable[RawEntry], folder: Path) -> None:
    """In override files, every number has a source: the entry's own, or its own inline one."""
    entries = list(entries)
    sourced_providers = {
        (e.file, str(e.data.get("id")))
        for e in entries
        if e.kind == "provider" and "source" in e.data
    }
    overrides = {f for f in {e.file for e in entries} if is_override(f, folder)}  # once a file
    for e in entries:
        if e.file not in overrides or "source" in e.data:
            continue
        inherited = (e.file, e.context.get("provider", "")) in sourced_providers
        if e.kind in ("offer", "hidden_costs") and inherited:
            continue
        for field, value, sourced in _leaves(e.data, ""):
            if isinstance(value, int | float) and not isinstance(value, bool) and not sourced:
                raise CatalogError(
                    "catalog.override_unsourced",
                    file=e.file,
                    line=locate_line(e.text, e.kind, e.index, field),
                    field=f"{e.kind}[{e.data.get('id') or e.index + 1}].{field}",
                )


def _names(e: RawEntry) -> Iterator[str]:
    for field in NAME_FIELDS.get(e.kind, ()):
        value = e.data.get(field)
        for name in value if isinstance(value, list) else [value]:
            if isinstance(name, str):
                yield name


def check_aliases(entries: Iterable[RawEntry], folder: Path) -> None:
    """An override's names and aliases never point at another entry's names (after overlay)."""
    owner: dict[tuple[str, str], RawEntry] = {}
    for e in entries:
        for name in _names(e):
            key = (e.kind, provider_key(name) if e.kind == "provider" else normalize(name))
            if not key[1]:
                continue
            other = owner.get(key)
            if other is None or other.data.get("id") == e.data.get("id"):
                owner[key] = e
                continue
            mine = e if is_override(e.file, folder) else other
            if not is_override(mine.file, folder):
                continue  # a clash inside the built-in data: Catalog.name_clashes reports it
            theirs = other if mine is e else e
            raise CatalogError(
                "catalog.alias_clash",
                file=mine.file,
                line=locate_line(mine.text, mine.kind, mine.index, "aliases"),
                field=f"{mine.kind}[{mine.data.get('id')}]",
                name=name,
                other=theirs.data.get("id"),
            )
