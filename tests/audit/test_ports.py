"""Listening services: real listeners on 127.0.0.1 (private) and 127.0.0.2 (standing for an
exposed address), the auth check against them, and the severity that follows."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from gpuwise.audit.model import Finding
from gpuwise.audit.ports import check_target, identify, probe_job, scope
from gpuwise.audit.report import audit_findings
from gpuwise.audit.tables import AuditTables
from gpuwise.probe.audit_collect import collect
from gpuwise.probe.context import ProbeContext
from tests.audit.conftest import EXPOSED, LOCAL, ONLY_LOOPBACK, with_port


def _findings(tables: AuditTables, port: int) -> list[Finding]:
    ctx = ProbeContext(deadline=time.monotonic() + 5)
    results = collect(ctx, probe_job(tables, ONLY_LOOPBACK), ["ports"], False, Path.cwd())
    findings, _ = audit_findings(results, tables, ONLY_LOOPBACK)
    return [f for f in findings if f.params.get("port") == port or str(port) in str(f.params)]


def _one(findings: list[Finding], rule: str) -> Finding:
    hits = [f for f in findings if f.rule == rule]
    assert len(hits) == 1, [(f.rule, f.params) for f in findings]
    return hits[0]


def test_open_jupyter_on_exposed_address_is_critical(tables: Any, http_listener: Any) -> None:
    port = http_listener(EXPOSED, {"/api/kernels": (200, "[]")})
    f = _one(_findings(with_port(tables, "jupyter", port), port), "GPUW-NET-JUPYTER")
    assert (f.severity, f.key) == ("critical", "svc_open")
    assert f.params["addresses"] == EXPOSED and f.params["detail"] == "HTTP 200"
    assert f"ssh -N -L {port}:127.0.0.1:{port}" in f.commands[0]
    assert "token" in f.text("fix")


def test_same_jupyter_on_loopback_is_quiet(tables: Any, http_listener: Any) -> None:
    port = http_listener(LOCAL, {"/api/kernels": (200, "[]")})
    assert _findings(with_port(tables, "jupyter", port), port) == []


def test_service_that_asks_for_credentials_is_info(tables: Any, http_listener: Any) -> None:
    port = http_listener(EXPOSED, {"/v1/models": (401, '{"error": "Unauthorized"}')})
    f = _one(_findings(with_port(tables, "vllm", port), port), "GPUW-NET-VLLM")
    assert (f.severity, f.key, f.params["detail"]) == ("info", "svc_protected", "HTTP 401")


def test_unreadable_answer_lowers_severity_one_step(tables: Any, http_listener: Any) -> None:
    port = http_listener(EXPOSED, {"/api/version": (500, "oops")})
    f = _one(_findings(with_port(tables, "ray-dashboard", port), port), "GPUW-NET-RAY-DASHBOARD")
    assert (f.severity, f.key) == ("high", "svc_unknown")  # critical when open, one step lower


def test_ollama_body_check_tells_it_from_a_stranger(tables: Any, http_listener: Any) -> None:
    port = http_listener(EXPOSED, {"/api/tags": (200, '{"models": []}')})
    f = _one(_findings(with_port(tables, "ollama", port), port), "GPUW-NET-OLLAMA")
    assert (f.severity, f.key) == ("high", "svc_open")
    other = http_listener(EXPOSED, {"/api/tags": (200, "<html>hello</html>")})
    g = _one(_findings(with_port(tables, "ollama", other), other), "GPUW-NET-OLLAMA")
    assert (g.severity, g.key) == ("medium", "svc_unknown")


def test_redis_without_password_fires_and_with_password_is_info(
    tables: Any, redis_listener: Any
) -> None:
    port = redis_listener(EXPOSED, "+PONG")
    f = _one(_findings(with_port(tables, "redis", port), port), "GPUW-NET-REDIS")
    assert (f.severity, f.params["detail"]) == ("high", "PONG")
    locked = redis_listener(EXPOSED, "-NOAUTH Authentication required.")
    g = _one(_findings(with_port(tables, "redis", locked), locked), "GPUW-NET-REDIS")
    assert (g.severity, g.key) == ("info", "svc_protected")


def test_no_auth_by_design_service_is_open_without_asking(tables: Any, http_listener: Any) -> None:
    port = http_listener(EXPOSED, {})  # TensorBoard has no login: nothing to ask
    f = _one(_findings(with_port(tables, "tensorboard", port), port), "GPUW-NET-TENSORBOARD")
    assert (f.severity, f.params["detail"]) == ("medium", "no authentication by design")


def test_unknown_service_beyond_loopback_is_one_info_line(tables: Any, http_listener: Any) -> None:
    exposed = http_listener(EXPOSED, {})
    private = http_listener(LOCAL, {})
    ctx = ProbeContext(deadline=time.monotonic() + 5)
    results = collect(ctx, probe_job(tables, ONLY_LOOPBACK), ["ports"], False, Path.cwd())
    findings, _ = audit_findings(results, tables, ONLY_LOOPBACK)
    other = _one(findings, "GPUW-NET-OTHER")
    assert other.severity == "info"
    assert f"{exposed}/" in other.params["list"] and f"{private}/" not in other.params["list"]


def test_scope_and_check_target() -> None:
    assert scope("0.0.0.0") == scope("::") == "all"
    assert scope("127.0.0.2") == "loopback" and scope("::ffff:127.0.0.1") == "loopback"
    assert scope("10.1.2.3") == "address"
    assert scope("127.0.0.2", ONLY_LOOPBACK) == "address"  # the tests' stand-in
    assert check_target("0.0.0.0") == "127.0.0.1" and check_target("::") == "::1"
    assert check_target("127.0.0.2") == "127.0.0.2"
    assert check_target("192.168.1.5") is None  # never leave loopback


def test_identify_by_name_port_and_sole_listener(tables: Any) -> None:
    svc = tables.services
    named, by_port = identify(
        {"port": 8000, "process": "python3", "cmdline": "vllm serve"}, svc, False
    )
    assert named is not None and named.id == "vllm" and not by_port
    hidden, by_port = identify({"port": 6379, "process": None}, svc, False)
    assert hidden is not None and hidden.id == "redis" and by_port
    gcs, _ = identify({"port": 6379, "process": "gcs_server"}, svc, False)
    assert gcs is not None and gcs.id == "ray-gcs"
    moved, _ = identify({"port": 9001, "process": "ollama", "cmdline": "ollama serve"}, svc, True)
    assert moved is not None and moved.id == "ollama"
    crowd, _ = identify({"port": 9001, "process": "ollama", "cmdline": "ollama"}, svc, False)
    assert crowd is None  # a process with several listeners is not guessed off its port
    ray, _ = identify({"port": 41000, "process": "ray", "cmdline": "ray::worker"}, svc, True)
    assert ray is None


def test_share_link_tunnel_process_fires_and_absent_is_quiet(tables: Any, tmp_path: Path) -> None:
    """A real child process named like Gradio's frpc client (a copy of `sleep`)."""
    import shutil
    import subprocess

    sleep = shutil.which("sleep")
    assert sleep is not None
    fake = tmp_path / "frpc_linux_amd64_v0.3"
    shutil.copy(sleep, fake)
    ctx = ProbeContext(deadline=time.monotonic() + 5)

    def share_findings() -> list[Finding]:
        results = collect(ctx, probe_job(tables, ONLY_LOOPBACK), ["ports"], False, Path.cwd())
        findings, _ = audit_findings(results, tables, ONLY_LOOPBACK)
        return [f for f in findings if f.rule == "GPUW-NET-SHARE-LINK"]

    assert share_findings() == []
    child = subprocess.Popen([str(fake), "30"])
    try:
        time.sleep(0.1)
        (f,) = [f for f in share_findings() if f.params["pid"] == child.pid]
        assert f.severity == "high" and str(f.params["process"]).startswith("frpc_")
        assert f.commands == (f"kill {child.pid}",)
    finally:
        child.kill()
        child.wait()
