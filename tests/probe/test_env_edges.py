"""Consoles and environments the doctor must survive: a malformed OLLAMA_HOST is a finding with
the right fix (not "crashed: ValueError"), and an empty, unset or relative PATH finds no tool —
not even one lying in the current directory."""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from gpuwise.doctor.engine import diagnose
from gpuwise.doctor.inputs import Inputs
from gpuwise.parse.result import Failed, Missing
from gpuwise.probe.ollama import BadHost, base_url, probe_ollama
from gpuwise.probe.run import run_cmd, search_path, which
from gpuwise.probe.toolkit import nvcc_on_path, probe_toolkit
from tests.doctor.build import tables
from tests.probe.support import FAKEBIN, make_ctx

BAD_HOSTS = [
    "127.0.0.1:99999",  # port out of range
    "localhost:abc",  # port not a number
    "http://127.0.0.1:0",
    "ftp://127.0.0.1:11434",
    "garbage host with spaces",
    "http://[::1",  # unclosed IPv6 bracket
    "%%%:11434",
]


@pytest.mark.parametrize("value", BAD_HOSTS)
def test_bad_ollama_host_is_a_finding(tmp_path: Path, value: str) -> None:
    with pytest.raises(BadHost):
        base_url(None, value)
    ctx = replace(make_ctx(tmp_path, env={"OLLAMA_HOST": value}), ollama_url=None)
    r = probe_ollama(ctx)
    assert isinstance(r, Failed) and r.reason == "bad_host", r
    assert r.facts["bad_host"]["value"] == value
    findings = diagnose(Inputs({"ollama": r}, tables()))
    (f,) = [f for f in findings if f.id.startswith("ollama.")]
    assert f.id == "ollama.bad_host" and f.level == "error"
    assert "export OLLAMA_HOST=127.0.0.1:11434" in f.commands
    assert not any(x.id == "probe.crashed" for x in findings)


@pytest.mark.parametrize(
    ("value", "url"),
    [
        ("0.0.0.0", "http://127.0.0.1:11434"),
        ("  127.0.0.1:11500 ", "http://127.0.0.1:11500"),
        ("https://example.com", "https://example.com:443"),
        ("[::1]:11434", "http://[::1]:11434"),
        ("", "http://127.0.0.1:11434"),
    ],
)
def test_good_ollama_hosts_still_work(value: str, url: str) -> None:
    assert base_url(None, value)[0] == url


def test_bad_ollama_host_through_the_cli(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:99999")
    res = cli("doctor", "--json")
    assert res.code == 1, res.err
    report = res.json()
    ids = [f["id"] for f in report["findings"]]
    assert "ollama.bad_host" in ids
    assert not any(i.startswith("probe.") for i in ids), ids
    assert report["facts"]["ollama"]["reason"] == "bad_host"
    assert "ValueError" not in res.out


@pytest.fixture
def nvcc_in_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory holding an executable nvcc (a fake that prints a version)."""
    (tmp_path / "nvcc").symlink_to(FAKEBIN / "nvcc")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("path", ["", ":", "::", ".", "relative/bin", None])
def test_empty_or_relative_path_finds_nothing(nvcc_in_cwd: Path, path: str | None) -> None:
    env = {} if path is None else {"PATH": path}
    assert nvcc_on_path(env) == []
    assert which("nvcc", env) is None
    assert search_path(env) == "" or path is None
    res = run_cmd(["nvcc", "--version"], 2.0, env)
    assert not res.found
    r = probe_toolkit(make_ctx(nvcc_in_cwd, env=env))
    assert isinstance(r, Missing) and r.facts["nvcc"] == []


def test_empty_path_does_not_report_nvcc_found(
    cli: Any, nvcc_in_cwd: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", "")
    res = cli("doctor", "--json", "--ollama-url", "http://127.0.0.1:9")
    assert res.code in (0, 1), res.err
    report = res.json()
    assert report["facts"]["toolkit"]["status"] == "missing"
    (row,) = [r for r in report["summary"] if r["probe"] == "toolkit"]
    assert not re.search(r"nvcc \d", row["value"]), row  # no version: nothing was found
    assert not [f for f in report["findings"] if f["id"].startswith("cuda.") and f["level"] == "ok"]
    assert os.environ["PATH"] == ""
