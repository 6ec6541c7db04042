"""The sourced, versioned catalog of GPUs, LLMs and clouds, with user overrides on top.

>>> from gpuwise.catalog import load_catalog
>>> cat = load_catalog()
>>> cat.gpu("4090").memory_gb
24.0

Heavy modules (pydantic models, TOML) load on first use, so listing commands that read the
plain-data cache (gpuwise.catalog.listing) start fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpuwise.catalog.catalog import Catalog, load_catalog

__all__ = ["Catalog", "load_catalog"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from gpuwise.catalog import catalog

        return getattr(catalog, name)
    raise AttributeError(name)
