"""sshd: fake /etc/ssh trees with Include files (first value wins, globs in lexical order,
relative paths under /etc/ssh, Match blocks), compiled-in defaults, and `sshd -T` from a fake
sshd when running as root."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from gpuwise.audit.model import Finding
from gpuwise.audit.ssh import ssh_findings
from gpuwise.parse.result import Found, Missing
from gpuwise.probe.audit_ssh import probe_ssh
from gpuwise.probe.context import ProbeContext
from tests.audit.conftest import fake_tool, write

SAFE = "PasswordAuthentication no\nKbdInteractiveAuthentication no\n"


def _audit(
    root: Path, tables: Any, as_root: bool = False, env: dict[str, str] | None = None
) -> tuple[Any, list[Finding]]:
    ctx = ProbeContext(deadline=time.monotonic() + 5, root=root, env=env or {"PATH": ""})
    result = probe_ssh(ctx, as_root, 2.0)
    return result, ssh_findings(result.facts, tables) if isinstance(result, Found) else []


def _rules(findings: list[Finding]) -> set[str]:
    return {f.rule for f in findings}


def test_include_before_main_setting_wins(tmp_path: Path, tables: Any) -> None:
    write(tmp_path, "/etc/ssh/sshd_config", "Include /etc/ssh/sshd_config.d/*.conf\n"
          "PasswordAuthentication no\nKbdInteractiveAuthentication no\n")  # fmt: skip
    write(tmp_path, "/etc/ssh/sshd_config.d/50-cloud-init.conf", "PasswordAuthentication yes\n")
    result, findings = _audit(tmp_path, tables)
    f = next(f for f in findings if f.rule == "GPUW-SSH-PASSWORD")
    assert f.severity == "medium"
    assert f.params["where"] == "/etc/ssh/sshd_config.d/50-cloud-init.conf:1"
    assert f.location == "/etc/ssh/sshd_config.d/50-cloud-init.conf"
    assert result.facts["files"][1].endswith("50-cloud-init.conf")


def test_main_setting_before_include_wins_and_is_quiet(tmp_path: Path, tables: Any) -> None:
    write(tmp_path, "/etc/ssh/sshd_config", SAFE + "Include sshd_config.d/*.conf\n")
    write(tmp_path, "/etc/ssh/sshd_config.d/50-cloud-init.conf", "PasswordAuthentication yes\n")
    _, findings = _audit(tmp_path, tables)
    assert findings == []


def test_glob_matches_are_read_in_lexical_order(tmp_path: Path, tables: Any) -> None:
    write(tmp_path, "/etc/ssh/sshd_config", "Include /etc/ssh/sshd_config.d/*.conf\n" + SAFE)
    write(tmp_path, "/etc/ssh/sshd_config.d/20-b.conf", "PermitRootLogin no\n")
    write(tmp_path, "/etc/ssh/sshd_config.d/10-a.conf", "permitrootlogin=yes\n")
    _, findings = _audit(tmp_path, tables)
    f = next(f for f in findings if f.rule == "GPUW-SSH-ROOT")
    assert f.severity == "high" and f.params["where"].endswith("10-a.conf:1")


def test_match_block_is_not_a_global_value(tmp_path: Path, tables: Any) -> None:
    write(tmp_path, "/etc/ssh/sshd_config", SAFE + "Match User backup\n  PermitRootLogin yes\n")
    _, findings = _audit(tmp_path, tables)
    assert "GPUW-SSH-ROOT" not in _rules(findings)  # default prohibit-password applies


def test_match_all_returns_to_global_values(tmp_path: Path, tables: Any) -> None:
    text = SAFE + "Match User backup\n  PermitRootLogin no\nMatch all\nPermitRootLogin yes\n"
    write(tmp_path, "/etc/ssh/sshd_config", text)
    _, findings = _audit(tmp_path, tables)
    assert [f.rule for f in findings] == ["GPUW-SSH-ROOT"]


def test_unset_password_authentication_takes_the_default(tmp_path: Path, tables: Any) -> None:
    write(tmp_path, "/etc/ssh/sshd_config", "KbdInteractiveAuthentication no\n")
    _, findings = _audit(tmp_path, tables)
    f = next(f for f in findings if f.rule == "GPUW-SSH-PASSWORD")
    assert f.params["value"] == "yes" and "not set: sshd's default" in f.text("seen")
    assert f.location == "/etc/ssh/sshd_config"


@pytest.mark.parametrize(
    ("line", "rule", "severity"),
    [
        ("PermitEmptyPasswords yes", "GPUW-SSH-EMPTY", "critical"),
        ("PermitRootLogin yes", "GPUW-SSH-ROOT", "high"),
        ("ChallengeResponseAuthentication yes", "GPUW-SSH-KBD", "low"),
        ("PubkeyAuthentication no", "GPUW-SSH-PUBKEY", "low"),
    ],
)
def test_each_setting_fires(
    tmp_path: Path, tables: Any, line: str, rule: str, severity: str
) -> None:
    write(tmp_path, "/etc/ssh/sshd_config", f"{line}\n{SAFE}")
    _, findings = _audit(tmp_path, tables)
    assert [(f.rule, f.severity) for f in findings] == [(rule, severity)]


@pytest.mark.parametrize(
    "line",
    ["PermitEmptyPasswords no", "PermitRootLogin prohibit-password", "PubkeyAuthentication yes",
     "# PermitRootLogin yes", "KbdInteractiveAuthentication no"],
)  # fmt: skip
def test_each_setting_quiet(tmp_path: Path, tables: Any, line: str) -> None:
    write(tmp_path, "/etc/ssh/sshd_config", f"{line}\n{SAFE}")
    _, findings = _audit(tmp_path, tables)
    assert findings == []


def test_sshd_t_is_used_as_root(tmp_path: Path, tables: Any) -> None:
    write(tmp_path, "/etc/ssh/sshd_config", SAFE)  # the files say safe; sshd -T knows better
    bindir = tmp_path / "bin"
    fake_tool(bindir, "sshd", 'printf "port 2222\\npermitrootlogin yes\\npasswordauthentication no'
              '\\nkbdinteractiveauthentication no\\n"\n')  # fmt: skip
    result, findings = _audit(tmp_path, tables, True, {"PATH": str(bindir)})
    assert result.facts["source"] == "sshd -T"
    f = next(f for f in findings if f.rule == "GPUW-SSH-ROOT")
    assert f.params["port"] == "2222" and f.params["where"] == "sshd -T"
    result, findings = _audit(tmp_path, tables, False, {"PATH": str(bindir)})
    assert result.facts["source"] == "files" and findings == []


def test_no_sshd_config_is_a_skip(tmp_path: Path, tables: Any) -> None:
    result, findings = _audit(tmp_path, tables)
    assert isinstance(result, Missing) and result.reason == "no_sshd_config" and findings == []
