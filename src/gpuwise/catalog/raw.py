"""Catalog entries as read from their files, before validation: what the loader produces and the
file guards check (a module of its own so that neither needs the other's import)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpuwise.catalog.schema import Source


@dataclass(frozen=True)
class RawEntry:
    """One entry as read, with where it came from (for error messages and overlays)."""

    kind: str
    data: dict[str, Any]
    file: str
    index: int
    text: str
    context: dict[str, str] = field(default_factory=dict)


@dataclass
class RawCatalog:
    """Everything read from a set of files, before validation."""

    sources: dict[str, Source] = field(default_factory=dict)
    source_files: dict[str, str] = field(default_factory=dict)
    entries: list[RawEntry] = field(default_factory=list)
