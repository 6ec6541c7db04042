"""The `gpuwise doctor --json` document (and `doctor --from … --json`) as types
(docs/schemas/doctor.json).

The findings, the summary rows and what a paste showed are typed; `facts` stays a mapping of
each probe's outcome as parse/result.as_dict states it: its shape is the probe facts contract,
one per probe (see docs/architecture.md, *Known debts*).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from gpuwise.documents import Frozen, Sparse

Level = Literal["ok", "info", "warn", "error"]


class FindingEntry(Frozen):
    """One conclusion in the user's language, with the commands that fix it."""

    id: str
    level: Level
    title: str
    detail: str
    why: str
    fix: str
    commands: list[str]


class SummaryRow(Frozen):
    """One probe: what it is, what it saw, and the worst finding about it."""

    probe: str
    row: str
    label: str
    status: str = Field(description="found | missing | failed | timeout")
    verdict: Level | None
    value: str


class MissingFact(Frozen):
    """A fact the paste did not show, and the one command whose output would settle it."""

    fact: str
    command: str


class PasteInfo(Frozen):
    """What was recognised in pasted text and which facts came from which block."""

    blocks: list[str]
    facts_from: dict[str, list[str]]
    missing: list[MissingFact]


class DoctorReport(Sparse):
    """`gpuwise doctor --json`; a pasted report adds `mode` and `paste`."""

    OMIT_WHEN_NONE = frozenset({"mode", "paste"})

    mode: Literal["paste"] | None = None
    summary: list[SummaryRow]
    findings: list[FindingEntry]
    facts: dict[str, dict[str, Any]]
    paste: PasteInfo | None = None
    sources: dict[str, str] = Field(description="source id → URL of the compatibility tables")
    exit_code: int
    elapsed_s: float
