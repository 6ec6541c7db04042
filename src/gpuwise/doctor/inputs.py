"""What every rule receives: the facts, the compatibility tables, and the run's options."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from gpuwise.doctor.model import Finding
from gpuwise.doctor.tables import CompatTables
from gpuwise.doctor.view import Facts, Host, host


@dataclass(frozen=True)
class Inputs:
    """Facts by probe name, sourced tables, and whether `--nccl` was asked for."""

    facts: Facts
    tables: CompatTables = field(default_factory=CompatTables)
    nccl_requested: bool = False

    @property
    def host(self) -> Host:
        """Where we are (for tailoring commands)."""
        return host(self.facts)


Rule = Callable[[Inputs], list[Finding]]
