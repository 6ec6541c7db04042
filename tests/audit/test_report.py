"""The report: what could not be checked is said (never silently dropped), partial facts still
give findings, exit codes and SARIF levels come from the catalog, secrets never reach output."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

from gpuwise.audit.report import audit_findings, make_report
from gpuwise.audit.sarif import to_sarif


def test_unreachable_docker_is_said_and_group_still_checked(tables: Any) -> None:
    results = {
        "containers": {
            "status": "failed",
            "reason": "docker_unreachable",
            "detail": "permission denied",
            "facts": {"partial": True, "group_members": ["alice"], "containers": []},
        },
        "ssh": {
            "status": "failed",
            "reason": "sshd_config_unreadable",
            "detail": "/etc/ssh/sshd_config",
            "facts": {"unreadable": ["/etc/ssh/sshd_config"]},
        },
    }
    findings, skips = audit_findings(results, tables)
    assert [f.rule for f in findings] == ["GPUW-DOCKER-GROUP"]  # no ssh guess from defaults
    texts = [s.text() for s in skips]
    assert any("permission denied" in t and "docker group" in t for t in texts)
    assert any("/etc/ssh/sshd_config" in t for t in texts)


def test_timeout_and_crash_are_skips(tables: Any) -> None:
    results = {
        "versions": {"status": "timeout", "reason": "timeout", "detail": "", "facts": {}},
        "files": {
            "status": "failed",
            "reason": "probe_error",
            "detail": "KeyError: x",
            "facts": {},
        },
    }
    report = make_report(results, tables, 0.1, False)
    assert report["findings"] == [] and report["exit_code"] == 0
    assert [s["reason"] for s in report["skipped"]] == ["timeout", "probe_error"]


def test_sarif_levels_follow_the_catalog(tables: Any) -> None:
    facts = {"settings": {"permitemptypasswords": {"value": "yes", "file": "/x", "line": 3}}}
    results = {"ssh": {"status": "found", "reason": "", "detail": "", "facts": facts}}
    report = make_report(results, tables, 0.1, False)
    sarif = to_sarif(report, tables, "0.0.0")
    levels = {r["ruleId"]: r["level"] for r in sarif["runs"][0]["results"]}
    assert levels == {
        "GPUW-SSH-EMPTY": tables.severities["critical"].sarif_level,
        "GPUW-SSH-PASSWORD": tables.severities["medium"].sarif_level,
        "GPUW-SSH-KBD": tables.severities["low"].sarif_level,
    }
    assert report["exit_code"] == tables.severities["critical"].exit_code


def test_command_line_keys_never_reach_the_output(cli: Any, monkeypatch: Any) -> None:
    """A real child process listening on 127.0.0.2 with a key on its command line."""
    code = (
        "import socket, sys, time\n"
        "s = socket.socket(); s.bind(('127.0.0.2', 0)); s.listen()\n"
        "print(s.getsockname()[1], flush=True); time.sleep(30)\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code, "--api-key", "sk-DO-NOT-LEAK"], stdout=subprocess.PIPE
    )
    try:
        assert child.stdout is not None
        port = int(child.stdout.readline())
        monkeypatch.setenv("GPUWISE_AUDIT_LOOPBACK", "127.0.0.1")
        r = cli("audit", "--only", "ports", "--json")
        assert f"{port}/" in r.out  # it was seen ...
        assert "sk-DO-NOT-LEAK" not in r.out + r.err  # ... and its key was not printed
        r = cli("audit", "--only", "ports")
        assert "sk-DO-NOT-LEAK" not in r.out + r.err
    finally:
        child.kill()
        child.wait()
