"""The doctor's report (doctor/report_model.DoctorReport): summary rows, findings, facts,
exit code (pure)."""

from __future__ import annotations

from gpuwise.catalog.compat import CompatTables
from gpuwise.doctor.engine import diagnose
from gpuwise.doctor.gpu_names import fill_capabilities
from gpuwise.doctor.inputs import Inputs
from gpuwise.doctor.model import exit_code
from gpuwise.doctor.report_model import DoctorReport, FindingEntry, ProbeOutcome, SummaryRow
from gpuwise.doctor.summary import summary
from gpuwise.parse.result import as_dict
from gpuwise.parse.view import Facts


def make_report(
    facts: Facts, tables: CompatTables, elapsed_s: float, nccl: bool = False
) -> DoctorReport:
    """Everything `gpuwise doctor` prints, in the shape of its --json output."""
    fill_capabilities(facts, tables)  # nvidia-smi without NVML names GPUs, not capabilities
    findings = diagnose(Inputs(facts, tables, nccl_requested=nccl))
    shown = [f.as_dict() for f in findings]
    return DoctorReport(
        summary=[SummaryRow(**row) for row in summary(facts, shown)],
        findings=[FindingEntry(**f) for f in shown],
        facts={name: ProbeOutcome(**as_dict(r)) for name, r in facts.items()},
        sources=tables.sources,
        exit_code=exit_code(findings),
        elapsed_s=round(elapsed_s, 2),
    )
