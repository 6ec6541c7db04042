"""`gpuwise audit` end to end: --only, --json, exit codes by severity, SARIF (never overwriting
without --force), both languages, and a real listener on Ollama's own port."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from gpuwise.audit.tables import tables_from_catalog
from gpuwise.catalog import load_catalog
from tests.audit.conftest import EXPOSED, only_path, tree_snapshot, write

SAFE = "PasswordAuthentication no\nKbdInteractiveAuthentication no\n"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake root with only the fake tools on PATH and a private home."""
    only_path(monkeypatch, tmp_path / "bin")
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(home)
    return tmp_path / "root"


def _ssh(cli: Any, tree: Path, config: str, *extra: str) -> Any:
    write(tree, "/etc/ssh/sshd_config", config)
    return cli("audit", "--only", "ssh", "--root", str(tree), *extra)


@pytest.mark.parametrize(
    ("config", "code", "rule"),
    [
        ("PermitEmptyPasswords yes\n" + SAFE, 5, "GPUW-SSH-EMPTY"),
        ("PermitRootLogin yes\n" + SAFE, 4, "GPUW-SSH-ROOT"),
        (SAFE.replace("no", "yes", 1), 3, "GPUW-SSH-PASSWORD"),
        ("PubkeyAuthentication no\n" + SAFE, 0, "GPUW-SSH-PUBKEY"),
        (SAFE, 0, None),
    ],
)
def test_exit_code_is_the_worst_severity(
    cli: Any, tree: Path, config: str, code: int, rule: str | None
) -> None:
    r = _ssh(cli, tree, config, "--json")
    assert r.code == code, r.err
    data = r.json()
    assert [f["rule"] for f in data["findings"]] == ([rule] if rule else [])
    assert data["areas"] == ["ssh"] and data["exit_code"] == code
    for f in data["findings"]:
        assert f["refs"] == ["https://man.openbsd.org/sshd_config"] and f["fix"] and f["commands"]


def test_help_states_the_catalog_exit_codes(cli: Any) -> None:
    r = cli("audit", "--help")
    assert r.code == 0
    text = " ".join(r.out.split())
    sev = tables_from_catalog(load_catalog()).severities
    for name in ("medium", "high", "critical"):
        assert f"{sev[name].exit_code} {name}" in text
    assert "0 when nothing is worse than low" in text and sev["low"].exit_code == 0


def test_bad_area_is_one_line_exit_2(cli: Any) -> None:
    r = cli("audit", "--only", "ports,dns")
    assert r.code == 2 and "dns" in r.err and "ports, ssh" in r.err
    assert "Traceback" not in r.err and len(r.err.strip().splitlines()) == 1


def test_human_output_in_both_languages(cli: Any, tree: Path) -> None:
    r = _ssh(cli, tree, "PermitRootLogin yes\n" + SAFE)
    assert "SSH lets root log in with a password" in r.out and "GPUW-SSH-ROOT" in r.out
    assert "exit code 4" in r.out
    r = _ssh(cli, tree, "PermitRootLogin yes\n" + SAFE, "--lang", "zh")
    assert "SSH 允许 root 用密码登录" in r.out and "退出码 4" in r.out


def test_sarif_written_and_never_overwritten_without_force(cli: Any, tree: Path) -> None:
    out = tree.parent / "audit.sarif"
    r = _ssh(cli, tree, "PermitRootLogin yes\n" + SAFE, "--sarif", str(out))
    assert r.code == 4 and "SARIF written" in r.err
    sarif = json.loads(out.read_text())
    assert sarif["version"] == "2.1.0"
    run = sarif["runs"][0]
    (result,) = run["results"]
    assert (result["ruleId"], result["level"]) == ("GPUW-SSH-ROOT", "error")
    uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "file:///etc/ssh/sshd_config"
    (rule,) = run["tool"]["driver"]["rules"]
    assert rule["properties"]["security-severity"] == "8.0"
    assert rule["helpUri"] == "https://man.openbsd.org/sshd_config"
    out.write_text("mine")
    r = _ssh(cli, tree, SAFE, "--sarif", str(out))
    assert r.code == 2 and out.read_text() == "mine"
    r = _ssh(cli, tree, SAFE, "--sarif", str(out), "--force")
    assert r.code == 0 and json.loads(out.read_text())["runs"][0]["results"] == []
    assert (tree.parent / "audit.sarif.bak").read_text() == "mine"


def test_audit_changes_nothing(cli: Any, tree: Path) -> None:
    write(tree, "/etc/ssh/sshd_config", "Include /etc/ssh/sshd_config.d/*\n" + SAFE)
    write(tree, "/etc/ssh/sshd_config.d/a.conf", "PermitRootLogin yes\n")
    write(tree, "/etc/group", "docker:x:998:alice\n")
    write(tree, "/etc/docker/daemon.json", '{"hosts": ["tcp://0.0.0.0:2375"]}')
    write(Path.home(), ".aws/credentials", "secret", 0o644)
    before = {**tree_snapshot(tree), **tree_snapshot(Path.home())}  # not the catalog cache
    r = cli("audit", "--root", str(tree), "--only", "ssh,containers,files,firewall", "--json")
    assert {**tree_snapshot(tree), **tree_snapshot(Path.home())} == before
    rules = {f["rule"] for f in r.json()["findings"]}
    assert {"GPUW-SSH-ROOT", "GPUW-DOCKER-GROUP", "GPUW-DOCKER-TCP"} <= rules
    assert "secret" not in r.out.replace("secret_", "")


def test_real_listener_on_ollamas_port(
    cli: Any, http_listener: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ollama's own port 11434 on 127.0.0.2, standing for a public address."""
    http_listener(EXPOSED, {"/api/tags": (200, '{"models": [{"name": "qwen3:8b"}]}')}, 11434)
    monkeypatch.setenv("GPUWISE_AUDIT_LOOPBACK", "127.0.0.1")
    r = cli("audit", "--only", "ports", "--json")
    data = r.json()
    (f,) = [f for f in data["findings"] if f["rule"] == "GPUW-NET-OLLAMA"]
    assert f["severity"] == "high" and "127.0.0.2 port 11434" in f["evidence"]
    assert "OLLAMA_HOST=127.0.0.1:11434" in f["fix"]
    assert r.code >= 4 and data["elapsed_s"] < 3
    assert re.search(r"ollama", " ".join(f["refs"]))
