"""Credential files and model folders (stat only; path and mode reported, content never read),
and firewall presence from a fake /etc tree and fake tools."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from gpuwise.audit.files import file_findings
from gpuwise.audit.firewall import firewall_findings
from gpuwise.audit.model import Finding
from gpuwise.audit.tables import AuditTables
from gpuwise.probe.audit_files import probe_files
from gpuwise.probe.audit_firewall import probe_firewall
from gpuwise.probe.context import ProbeContext
from tests.audit.conftest import CURRENT, fake_tool, write


def _tables() -> AuditTables:
    return CURRENT[0]


SECRET = "aws_secret_access_key = do-not-print-me\n"


def _files(home: Path, cwd: Path, tables: Any) -> list[Finding]:
    return file_findings(probe_files(tables.files, home, cwd).facts, tables)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home" / "alice"
    h.mkdir(parents=True)
    for folder in (tmp_path, tmp_path / "home", h):
        folder.chmod(0o755)
    return h


@pytest.mark.parametrize(
    ("mode", "severity", "key"),
    [(0o644, "high", "file_world"), (0o640, "medium", "file_group"), (0o600, None, None)],
)
def test_credentials_mode(
    home: Path, tables: Any, mode: int, severity: str | None, key: str | None
) -> None:
    write(home, ".aws/credentials", SECRET, mode)
    findings = _files(home, home, tables)
    assert [(f.severity, f.key) for f in findings] == ([(severity, key)] if severity else [])
    for f in findings:
        assert f.params["mode"] == f"{mode:04o}" and f.params["path"].endswith(".aws/credentials")
        assert "do-not-print-me" not in str(f.params) + f.text("seen")
        assert f.sources[0] == "audit-aws-files" and f.rule.startswith("GPUW-FILE-")


def test_closed_home_lowers_world_readable_secret(home: Path, tables: Any) -> None:
    home.chmod(0o750)
    write(home, ".cache/huggingface/token", "hf_x", 0o644)
    (f,) = _files(home, home, tables)
    assert (f.severity, f.key) == ("medium", "file_world_closed")


def test_dotenv_in_work_folder(home: Path, tmp_path: Path, tables: Any) -> None:
    project = tmp_path / "proj"
    write(project, ".env", "OPENAI_API_KEY=sk-x\n", 0o644)
    project.chmod(0o755)
    (f,) = _files(home, project, tables)
    assert f.location == str(project / ".env") and f.severity == "high"


def test_model_folder_open_to_others_is_low_and_private_is_quiet(home: Path, tables: Any) -> None:
    hub = home / ".cache/huggingface/hub"
    hub.mkdir(parents=True)
    (home / ".cache").chmod(0o755)
    (home / ".cache/huggingface").chmod(0o755)
    hub.chmod(0o755)
    (f,) = _files(home, home, tables)
    assert (f.rule, f.severity) == ("GPUW-FILE-DATA", "low")
    hub.chmod(0o750)
    assert _files(home, home, tables) == []


def _firewall(tmp_path: Path, as_root: bool, tools: dict[str, str]) -> dict[str, Any]:
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    for name, out in tools.items():
        fake_tool(bindir, name, f"printf '{out}\\n'\n")
    ctx = ProbeContext(deadline=time.monotonic() + 5, root=tmp_path, env={"PATH": str(bindir)})
    return probe_firewall(ctx, as_root, 2.0).facts


def test_ufw_enabled_is_info(tmp_path: Path) -> None:
    write(tmp_path, "/etc/ufw/ufw.conf", "# comment\nENABLED=yes\nLOGLEVEL=low\n")
    (f,) = firewall_findings(_firewall(tmp_path, False, {}), 2, _tables())
    assert (f.rule, f.severity, f.params["names"]) == ("GPUW-FW-ACTIVE", "info", "ufw")


def test_firewalld_running_and_nft_input_chain_count(tmp_path: Path) -> None:
    nft = "table inet f {\\n chain in { type filter hook input priority 0; }\\n}"
    facts = _firewall(tmp_path, True, {"firewall-cmd": "running", "nft": nft})
    (f,) = firewall_findings(facts, 0, _tables())
    assert f.params["names"] == "firewalld, nftables"


@pytest.mark.parametrize(("exposed", "severity"), [(0, "low"), (3, "medium")])
def test_no_firewall_fires(tmp_path: Path, exposed: int, severity: str) -> None:
    write(tmp_path, "/etc/ufw/ufw.conf", "ENABLED=no\n")
    (f,) = firewall_findings(
        _firewall(tmp_path, False, {"firewall-cmd": "not running"}), exposed, _tables()
    )
    assert (f.rule, f.severity) == ("GPUW-FW-NONE", severity)


def test_nft_rules_unreadable_as_user_is_not_called_open(tmp_path: Path) -> None:
    facts = _firewall(tmp_path, False, {"nft": "should not run"})
    assert facts["unreadable"] == ["nft list ruleset"]
    assert firewall_findings(facts, 3, _tables()) == []
