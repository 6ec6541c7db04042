"""Regression tests for the audit findings of the newcomer review
(../shared/research/review3/newcomer.md, #8 and Part 2: a-only-empty, a-root-missing,
a-root-file).

The SSH fix must take effect whatever the order of `Include` and the setting (sshd keeps the
first value it reads): each proposed command is run for real (sed, tee) on a fake /etc, and the
audit run again must no longer find the hole.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from gpuwise.audit.model import Finding
from gpuwise.audit.ssh import ssh_findings
from gpuwise.parse.result import Found
from gpuwise.probe.audit_ssh import probe_ssh
from gpuwise.probe.context import ProbeContext
from tests.audit.conftest import write

SAFE = "PasswordAuthentication no\nKbdInteractiveAuthentication no\n"
INCLUDE = "Include /etc/ssh/sshd_config.d/*.conf\n"
DROPIN_DIR = "/etc/ssh/sshd_config.d"


def _findings(root: Path, tables: Any) -> list[Finding]:
    ctx = ProbeContext(deadline=time.monotonic() + 5, root=root, env={"PATH": ""})
    result = probe_ssh(ctx, False, 2.0)
    assert isinstance(result, Found), result
    return ssh_findings(result.facts, tables)


def _apply(root: Path, command: str) -> None:
    """Run a proposed fix for real, on the fake tree: no sudo, /etc re-rooted under `root`."""
    assert command.startswith(("echo ", "sudo sed -i ")), command
    local = command.replace("sudo ", "").replace(" /etc/", f" {root}/etc/")
    (root / DROPIN_DIR.lstrip("/")).mkdir(parents=True, exist_ok=True)
    subprocess.run(["bash", "-c", local], check=True, capture_output=True, timeout=10)


CASES = {
    # newcomer #8: the setting on line 1, the Include after it
    "setting-before-include": ({"/etc/ssh/sshd_config": "PermitRootLogin yes\n" + INCLUDE + SAFE},
                               "GPUW-SSH-ROOT", "sed"),
    "setting-before-relative-include": (
        {"/etc/ssh/sshd_config": SAFE + "PermitRootLogin yes\nInclude sshd_config.d/*.conf\n"},
        "GPUW-SSH-ROOT", "sed"),
    "include-before-setting": ({"/etc/ssh/sshd_config": INCLUDE + "PermitRootLogin yes\n" + SAFE},
                               "GPUW-SSH-ROOT", "tee"),
    "cloud-init-dropin": ({"/etc/ssh/sshd_config": INCLUDE + "PasswordAuthentication no\n",
                           f"{DROPIN_DIR}/50-cloud-init.conf": "PasswordAuthentication yes\n"},
                          "GPUW-SSH-PASSWORD", "tee"),
    "dropin-sorting-first": ({"/etc/ssh/sshd_config": INCLUDE + SAFE,
                              f"{DROPIN_DIR}/00-aaa.conf": "PermitRootLogin yes\n"},
                             "GPUW-SSH-ROOT", "sed"),
    "our-own-dropin-already-there": ({"/etc/ssh/sshd_config": INCLUDE + SAFE,
                                      f"{DROPIN_DIR}/00-gpuwise.conf": "PermitRootLogin yes\n"},
                                     "GPUW-SSH-ROOT", "sed"),
    "unset-no-include-match-at-end": (
        {"/etc/ssh/sshd_config": "KbdInteractiveAuthentication no\nMatch User backup\n"
                                 "  PasswordAuthentication no\n"},
        "GPUW-SSH-PASSWORD", "sed"),
    "unset-include-inside-match": (
        {"/etc/ssh/sshd_config": "KbdInteractiveAuthentication no\nMatch User x\n" + INCLUDE},
        "GPUW-SSH-PASSWORD", "sed"),
    "unset-with-include": ({"/etc/ssh/sshd_config": "KbdInteractiveAuthentication no\n" + INCLUDE},
                           "GPUW-SSH-PASSWORD", "tee"),
}  # fmt: skip


@pytest.mark.skipif(shutil.which("sed") is None, reason="needs sed to run the proposed fix")
@pytest.mark.parametrize("case", list(CASES))
def test_ssh_fix_takes_effect_whatever_the_include_order(
    tmp_path: Path, tables: Any, case: str
) -> None:
    files, rule, how = CASES[case]
    for path, text in files.items():
        write(tmp_path, path, text)
    finding = next(f for f in _findings(tmp_path, tables) if f.rule == rule)
    fix = finding.commands[0]
    assert fix.startswith("echo" if how == "tee" else "sudo sed"), fix
    _apply(tmp_path, fix)
    assert rule not in {f.rule for f in _findings(tmp_path, tables)}, (
        fix,
        (tmp_path / "etc/ssh/sshd_config").read_text(),
    )


def test_a_binary_sshd_config_is_said_not_read_as_defaults(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "etc" / "ssh" / "sshd_config"
    path.parent.mkdir(parents=True)
    path.write_bytes(bytes(range(256)) * 4)
    r = cli("audit", "--only", "ssh", "--root", str(tmp_path), "--json")
    data = r.json()
    assert data["findings"] == []  # not "passwords allowed by default"
    (skip,) = data["skipped"]
    assert skip["reason"] == "sshd_config_not_text" and "not a text file" in skip["text"]


@pytest.mark.parametrize(
    ("case", "args", "words"),
    [
        ("a-only-empty", ["--only", ""], ["--only", "empty"]),
        ("a-only-commas", ["--only", " , "], ["--only", "empty"]),
        ("a-root-missing", ["--only", "ssh", "--root", "{tmp}/no-such-root"], ["does not exist"]),
        ("a-root-file", ["--only", "ssh", "--root", "{tmp}/afile"], ["not a folder"]),
    ],
)
def test_audit_bad_scope_is_exit_2(
    cli: Any, tmp_path: Path, case: str, args: list[str], words: list[str]
) -> None:
    (tmp_path / "afile").write_text("x")
    r = cli("audit", *[a.replace("{tmp}", str(tmp_path)) for a in args])
    assert r.code == 2, (case, r.out, r.err)
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and all(w in lines[0] for w in words), r.err
