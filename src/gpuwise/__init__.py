"""gpuwise: buy or rent GPUs, which card, which cloud, with numbers you can check.

The Python API is loaded lazily so that importing gpuwise stays cheap:

>>> import gpuwise
>>> gpuwise.gpu("RTX 4090").memory_gb
24.0
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from gpuwise.catalog import Catalog
    from gpuwise.catalog.schema import Gpu, LlmModel


def load_catalog() -> Catalog:
    """The built-in catalog with the user's overrides."""
    from gpuwise.catalog import load_catalog as _load

    return _load()


def gpu(name: str) -> Gpu:
    """Look a GPU up by id, name or alias ("4090", "A100-80GB")."""
    return load_catalog().gpu(name)


def model(name: str) -> LlmModel:
    """Look a model up by id, Hugging Face repo, Ollama tag, or a local config.json / GGUF path."""
    from gpuwise.catalog.local import resolve_model

    return resolve_model(load_catalog(), name)


def __getattr__(name: str) -> Any:
    if name in ("estimate_memory",):
        from gpuwise.estimate import memory

        return getattr(memory, name)
    raise AttributeError(name)
