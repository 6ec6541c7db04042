"""Docker: a fake `docker` replaying `docker ps -q` and `docker inspect` JSON (synthetic, in the
Docker Engine API's shape), /etc/group and /etc/docker/daemon.json in a fake tree."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from gpuwise.audit.containers import container_findings
from gpuwise.audit.model import Finding
from gpuwise.probe.audit_docker import probe_docker
from gpuwise.probe.context import ProbeContext
from tests.audit.conftest import CURRENT, fake_tool, write

BAD = {
    "Id": "a" * 64,
    "Name": "/trainer",
    "Config": {"User": "", "Image": "pytorch/pytorch:latest"},
    "HostConfig": {
        "Privileged": True,
        "Binds": ["/var/run/docker.sock:/var/run/docker.sock", "/data:/data"],
        "PortBindings": {"8888/tcp": [{"HostIp": "", "HostPort": "8888"}]},
    },
    "Mounts": [{"Type": "bind", "Source": "/var/run/docker.sock"}],
}
GOOD = {
    "Id": "b" * 64,
    "Name": "/server",
    "Config": {"User": "1000:1000", "Image": "vllm/vllm-openai:v0.9.0"},
    "HostConfig": {
        "Privileged": False,
        "Binds": ["/models:/models:ro"],
        "PortBindings": {"8000/tcp": [{"HostIp": "127.0.0.1", "HostPort": "8000"}]},
    },
    "Mounts": [{"Type": "bind", "Source": "/models"}],
}


def _setup(tmp_path: Path, containers: list[dict[str, Any]], ps_rc: int = 0) -> ProbeContext:
    bindir = tmp_path / "bin"
    (tmp_path / "inspect.json").write_text(json.dumps(containers))
    ids = "\n".join(str(c["Id"]) for c in containers)
    fake_tool(
        bindir,
        "docker",
        f'case "$1" in\n ps) [ {ps_rc} -eq 0 ] || {{ echo "permission denied while trying to '
        f'connect to the Docker daemon socket" >&2; exit {ps_rc}; }}; printf "%s\\n" "{ids}";;\n'
        f' inspect) /bin/cat "{tmp_path}/inspect.json";;\n *) exit 9;;\nesac\n',
    )
    return ProbeContext(deadline=time.monotonic() + 5, root=tmp_path, env={"PATH": str(bindir)})


def _run(ctx: ProbeContext) -> tuple[Any, list[Finding]]:
    result = probe_docker(ctx, 2.0)
    return result, container_findings(result.facts, CURRENT[0])


def _by_rule(findings: list[Finding]) -> dict[str, Finding]:
    return {f.rule: f for f in findings}


def test_risky_container_fires_every_container_rule(tmp_path: Path) -> None:
    _, findings = _run(_setup(tmp_path, [BAD, GOOD]))
    rules = _by_rule(findings)
    assert rules["GPUW-CTR-PRIVILEGED"].severity == "high"
    assert rules["GPUW-CTR-PRIVILEGED"].params["name"] == "trainer"
    assert rules["GPUW-CTR-DOCKER-SOCK"].severity == "critical"
    assert rules["GPUW-CTR-ROOT"].params["names"] == "trainer"
    assert rules["GPUW-CTR-PUBLISHED"].params["list"] == "trainer:8888"
    assert "server" not in str([f.params for f in findings])


def test_careful_container_is_quiet(tmp_path: Path) -> None:
    result, findings = _run(_setup(tmp_path, [GOOD]))
    assert result.status == "found" and findings == []


@pytest.mark.parametrize("user", ["0", "root", "0:0"])
def test_explicit_root_user_counts_as_root(tmp_path: Path, user: str) -> None:
    c = {**GOOD, "Config": {**GOOD["Config"], "User": user}}  # type: ignore[dict-item]
    _, findings = _run(_setup(tmp_path, [c]))
    assert [f.rule for f in findings] == ["GPUW-CTR-ROOT"]


def test_docker_group_members_fire_and_empty_group_is_quiet(tmp_path: Path) -> None:
    write(tmp_path, "/etc/group", "root:x:0:\ndocker:x:998:alice,bob\n")
    _, findings = _run(_setup(tmp_path, []))
    f = _by_rule(findings)["GPUW-DOCKER-GROUP"]
    assert (f.severity, f.params["members"]) == ("medium", "alice, bob")
    write(tmp_path, "/etc/group", "root:x:0:\ndocker:x:998:\n")
    _, findings = _run(_setup(tmp_path, []))
    assert findings == []


@pytest.mark.parametrize(
    ("config", "fires"),
    [
        ({"hosts": ["unix:///var/run/docker.sock", "tcp://0.0.0.0:2375"]}, True),
        ({"hosts": ["tcp://0.0.0.0:2376"], "tlsverify": True}, False),
        ({"hosts": ["tcp://127.0.0.1:2375"]}, False),
        ({"hosts": ["unix:///var/run/docker.sock"]}, False),
    ],
)
def test_daemon_on_tcp_without_tls(tmp_path: Path, config: dict[str, Any], fires: bool) -> None:
    write(tmp_path, "/etc/docker/daemon.json", json.dumps(config))
    _, findings = _run(_setup(tmp_path, []))
    assert ("GPUW-DOCKER-TCP" in _by_rule(findings)) is fires


def test_unreachable_daemon_is_a_skip_but_group_is_still_read(tmp_path: Path) -> None:
    write(tmp_path, "/etc/group", "docker:x:998:carol\n")
    result, findings = _run(_setup(tmp_path, [BAD], ps_rc=1))
    assert result.status == "failed" and result.reason == "docker_unreachable"
    assert "permission denied" in result.detail
    assert [f.rule for f in findings] == ["GPUW-DOCKER-GROUP"]


def test_missing_docker_is_a_skip(tmp_path: Path) -> None:
    ctx = ProbeContext(deadline=time.monotonic() + 5, root=tmp_path, env={"PATH": ""})
    result, findings = _run(ctx)
    assert result.status == "missing" and result.reason == "docker_missing" and findings == []


@pytest.mark.parametrize(
    ("execstart", "fires"),
    [
        ("ExecStart=/usr/bin/dockerd -H fd:// -H tcp://0.0.0.0:2375", True),
        ("ExecStart=/usr/bin/dockerd --host=tcp://0.0.0.0:2376 --tlsverify", False),
        ("ExecStart=/usr/bin/dockerd -H fd:// --containerd=/run/containerd/containerd.sock", False),
    ],
)
def test_daemon_on_tcp_from_systemd_drop_in(tmp_path: Path, execstart: str, fires: bool) -> None:
    write(tmp_path, "/lib/systemd/system/docker.service", "[Service]\nExecStart=/usr/bin/dockerd\n")
    write(tmp_path, "/etc/systemd/system/docker.service.d/override.conf",
          f"[Service]\nExecStart=\n{execstart}\n")  # fmt: skip
    _, findings = _run(_setup(tmp_path, []))
    assert ("GPUW-DOCKER-TCP" in _by_rule(findings)) is fires
