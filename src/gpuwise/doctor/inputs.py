"""What every rule receives: the facts, the compatibility tables, and the run's options."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from gpuwise.catalog.compat import CompatTables
from gpuwise.doctor.model import Finding
from gpuwise.doctor.view import Facts, Host, host


@dataclass(frozen=True)
class Inputs:
    """Facts by probe name, sourced tables, whether `--nccl` was asked for, and whether the
    facts were pasted (then absent facts are unknown, not "not installed")."""

    facts: Facts
    tables: CompatTables = field(default_factory=CompatTables)
    nccl_requested: bool = False
    pasted: bool = False  # facts come from text someone pasted, not from probing this machine

    @property
    def host(self) -> Host:
        """Where we are (for tailoring commands)."""
        return host(self.facts, self.tables.cloud_dmi)


Rule = Callable[[Inputs], list[Finding]]
