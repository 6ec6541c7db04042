"""The `gpuwise doctor --json` document (and `doctor --from … --json`) as types
(docs/schemas/doctor.json).

The findings, the summary rows, what a paste showed and each probe's outcome (status, reason,
detail, seconds) are typed; what a probe saw (`facts.<probe>.facts`) stays a mapping whose keys
are each probe's own (see docs/architecture.md, *Known debts*). The NVIDIA GPUs in it are read
by the rules as parse/gpu_facts.NvidiaGpu.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from gpuwise.documents import Frozen, Sparse
from gpuwise.parse.result import Status

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
    status: Status
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


class ProbeOutcome(Sparse):
    """One probe's result as parse/result.as_dict writes it; `seconds` only when it timed out."""

    OMIT_WHEN_NONE = frozenset({"seconds"})

    status: Status
    reason: str = Field(description="machine-readable code: not_installed, timeout, …")
    detail: str = Field(description="the first line of what the tool said")
    facts: dict[str, Any] = Field(description="what the probe saw; keys are the probe's own")
    seconds: float | None = Field(default=None, description="how long it was waited for")


class DoctorReport(Sparse):
    """`gpuwise doctor --json`; a pasted report adds `mode` and `paste`."""

    OMIT_WHEN_NONE = frozenset({"mode", "paste"})

    mode: Literal["paste"] | None = None
    summary: list[SummaryRow]
    findings: list[FindingEntry]
    facts: dict[str, ProbeOutcome] = Field(description="probe name → its outcome")
    paste: PasteInfo | None = None
    sources: dict[str, str] = Field(description="source id → URL of the compatibility tables")
    exit_code: int
    elapsed_s: float
