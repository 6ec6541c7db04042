"""NVIDIA Container Toolkit and driver versions against the catalog's fixed versions, read from
fake `nvidia-ctk`, `nvidia-container-cli` and `nvidia-smi` and a fake /proc tree (outputs in the
tools' formats, written for these tests)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from gpuwise.audit.model import Finding
from gpuwise.audit.versions import version_findings, version_tuple
from gpuwise.probe.audit_versions import parse_toolkit_version, probe_versions
from gpuwise.probe.context import ProbeContext
from tests.audit.conftest import fake_tool, write


def _run(tmp_path: Path, tables: Any, tools: dict[str, str]) -> tuple[Any, list[Finding]]:
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    for name, out in tools.items():
        fake_tool(bindir, name, f"printf '{out}\\n'\n")
    ctx = ProbeContext(deadline=time.monotonic() + 5, root=tmp_path, env={"PATH": str(bindir)})
    result = probe_versions(ctx, 2.0)
    return result, version_findings(result.facts, tables)


def test_old_toolkit_fires_with_every_open_cve(tmp_path: Path, tables: Any) -> None:
    out = "NVIDIA Container Toolkit CLI version 1.17.3\\ncommit: 0123abc"
    _, findings = _run(tmp_path, tables, {"nvidia-ctk": out})
    (f,) = findings
    assert (f.rule, f.severity, f.params["fixed"]) == ("GPUW-VER-NCT", "critical", "1.17.8")
    assert "CVE-2025-23359" in f.params["cves"] and "CVE-2025-23266" in f.params["cves"]
    assert "CVE-2024-0132" not in f.params["cves"]  # fixed in 1.16.2, already there
    assert "audit-nct-2025-23266" in f.sources


def test_fixed_toolkit_is_quiet(tmp_path: Path, tables: Any) -> None:
    _, findings = _run(
        tmp_path, tables, {"nvidia-ctk": "NVIDIA Container Toolkit CLI version 1.17.8"}
    )
    assert findings == []


def test_container_cli_is_read_when_ctk_is_absent(tmp_path: Path, tables: Any) -> None:
    out = "cli-version: 1.16.1\\nlib-version: 1.16.1"
    result, findings = _run(tmp_path, tables, {"nvidia-container-cli": out})
    assert result.facts["toolkit"] == {"version": "1.16.1", "via": "nvidia-container-cli"}
    assert "CVE-2024-0132" in findings[0].params["cves"]


@pytest.mark.parametrize(
    ("version", "fires"), [("590.44.01", True), ("590.48.01", False), ("580.65.06", False)]
)
def test_driver_compared_within_its_branch(
    tmp_path: Path, tables: Any, version: str, fires: bool
) -> None:
    result, findings = _run(tmp_path, tables, {"nvidia-smi": version})
    assert result.facts["driver"] == {"version": version, "via": "nvidia-smi"}
    assert ([f.rule for f in findings] == ["GPUW-VER-DRIVER"]) is fires


def test_driver_read_from_proc_first(tmp_path: Path, tables: Any) -> None:
    line = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  590.44.01  Tue Nov 18 2025\n"
    write(tmp_path, "/proc/driver/nvidia/version", line)
    result, findings = _run(tmp_path, tables, {"nvidia-smi": "1.0"})
    assert result.facts["driver"]["via"] == "/proc/driver/nvidia/version"
    assert findings[0].params["version"] == "590.44.01"


def test_nothing_installed_is_a_skip(tmp_path: Path, tables: Any) -> None:
    result, findings = _run(tmp_path, tables, {})
    assert result.status == "missing" and findings == []


def test_version_parsing() -> None:
    assert version_tuple("1.17.10") > version_tuple("1.17.8")  # type: ignore[operator]
    assert version_tuple("garbage") is None
    assert parse_toolkit_version("NVIDIA Container Toolkit CLI version 1.17.8") == "1.17.8"
    assert parse_toolkit_version("no version here") == ""
