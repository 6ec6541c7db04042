"""The memory model's constants, looked up by id or alias from the catalog (data/memory.toml)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from gpuwise.catalog import Catalog
from gpuwise.catalog.names import normalize
from gpuwise.catalog.schema_memory import (
    ActivationModel,
    Engine,
    KvDtype,
    Optimizer,
    Precision,
    WeightFormat,
)
from gpuwise.errors import UserError


class Named(Protocol):
    """Anything looked up by id or alias."""

    @property
    def id(self) -> str:
        """Canonical id."""

    @property
    def aliases(self) -> list[str]:
        """Other names."""


T = TypeVar("T", bound=Named)


def _find(items: Sequence[T], name: str, what: str) -> T:
    """Match an id or alias (case and separators ignored); unknown names list the choices.
    The planner asks by exact id thousands of times a plan: that is answered before any
    name is normalized."""
    for item in items:
        if item.id == name:
            return item
    key = normalize(name)
    for item in items:
        names = [item.id, *item.aliases]
        if any(normalize(n) == key for n in names):
            return item
    raise UserError(f"estimate.unknown_{what}", value=name, choices=", ".join(i.id for i in items))


@dataclass(frozen=True)
class MemoryConstants:
    """All constants of the memory model, from one catalog."""

    weight_formats: tuple[WeightFormat, ...]
    kv_dtypes: tuple[KvDtype, ...]
    optimizers: tuple[Optimizer, ...]
    precisions: tuple[Precision, ...]
    engines: tuple[Engine, ...]
    activation: ActivationModel

    @classmethod
    def from_catalog(cls, cat: Catalog) -> MemoryConstants:
        """Collect the constants; a catalog without them is a broken install."""
        act = cat.extra("activation_model")

        def typed(kind: str) -> tuple[Any, ...]:
            return cat.extra(kind)

        return cls(
            weight_formats=typed("weight_format"),
            kv_dtypes=typed("kv_dtype"),
            optimizers=typed("optimizer"),
            precisions=typed("precision"),
            engines=typed("engine"),
            activation=act[0],
        )

    def weight_format(self, name: str) -> WeightFormat:
        """A weight format by id or alias ("Q4_K_M", "gptq", "nf4")."""
        return _find(self.weight_formats, name, "quant")

    def kv_dtype(self, name: str) -> KvDtype:
        """A KV-cache element type by id or alias."""
        return _find(self.kv_dtypes, name, "kv_dtype")

    def optimizer(self, name: str) -> Optimizer:
        """An optimizer by id or alias."""
        return _find(self.optimizers, name, "optimizer")

    def precision(self, name: str) -> Precision:
        """A training precision by id or alias."""
        return _find(self.precisions, name, "precision")

    def engine(self, name: str) -> Engine:
        """A serving or training engine by id or alias."""
        return _find(self.engines, name, "engine")
