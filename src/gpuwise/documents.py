"""The base of the `--json` documents: frozen pydantic parts that declare every key.

Every report model (cost, plan, estimate, doctor) is built from these, so that a renderer reads
`bill.total`, not `bill["total"]` (a typo is a mypy error, not an empty cell), a key the code
adds without declaring it fails at once (`extra="forbid"`), and the schemas published under
docs/schemas/ come from the same definitions as the documents.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer


class Frozen(BaseModel):
    """A report part: immutable, and no key the type does not declare."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Sparse(Frozen):
    """A report part whose optional keys are left out where they do not apply, not written as
    null (the documents have always done so: a training run's micro-batch, a GPU's fit)."""

    OMIT_WHEN_NONE: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _without_absent(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        omit = self.OMIT_WHEN_NONE
        return {k: v for k, v in data.items() if v is not None or k not in omit}


class NoteEntry(Frozen):
    """A message key and its values (the renderer words it in the user's language)."""

    key: str
    params: dict[str, Any]
