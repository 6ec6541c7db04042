"""Catalog parts that stay pickled until a command asks for them.

Why: unpickling a typed entry imports the module that defines its class, and every schema module
builds pydantic classes on import. `gpuwise estimate` needs GPUs, models and the speed and memory
tables, not cloud offers, setup pins or audit rules; keeping each part as its own pickle inside
the cached catalog lets a command pay only for the parts it reads (issue 12: `estimate` ≤ 0.3 s).
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator, Mapping
from typing import Any


class LazyParts(Mapping[str, Any]):
    """Named catalog parts; each is unpickled on first access and then kept.

    Built from plain values; pickling it writes every part as its own bytes, so a cached catalog
    loads without touching the parts' classes.
    """

    def __init__(
        self, values: Mapping[str, Any] | None = None, packed: Mapping[str, bytes] | None = None
    ):
        self._values: dict[str, Any] = dict(values or {})
        self._packed: dict[str, bytes] = dict(packed or {})

    def __getitem__(self, name: str) -> Any:
        if name not in self._values:
            self._values[name] = pickle.loads(self._packed[name])
        return self._values[name]

    def __contains__(self, name: object) -> bool:
        return name in self._values or name in self._packed

    def __iter__(self) -> Iterator[str]:
        return iter(sorted({*self._values, *self._packed}))

    def __len__(self) -> int:
        return len({*self._values, *self._packed})

    def __reduce__(self) -> tuple[Any, ...]:
        packed = dict(self._packed)
        for name, value in self._values.items():
            packed[name] = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        return (LazyParts, (None, packed))
