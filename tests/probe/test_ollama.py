"""Ollama probe against a real HTTP server on loopback; URL resolution; systemd settings."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from gpuwise.parse.ollama import parse_ps
from gpuwise.parse.result import Failed, Found, Missing
from gpuwise.probe.ollama import base_url, probe_ollama, unit_environment, unit_exec_start
from tests.probe.ollama_server import serve
from tests.probe.support import FIXTURES, make_ctx, write_tree

VERSION = (FIXTURES / "ollama" / "api-version-docs.json").read_bytes()
PS_DOCS = (FIXTURES / "ollama" / "api-ps-docs.json").read_bytes()
# Synthetic (not recorded): the docs' model, loaded entirely in system memory.
PS_CPU = json.dumps(
    {"models": [{"name": "mistral:latest", "size": 5137025024, "size_vram": 0}]}
).encode()


def test_docs_replies_model_on_gpu(tmp_path: Path) -> None:
    with serve({"/api/version": (200, VERSION, 0), "/api/ps": (200, PS_DOCS, 0)}) as url:
        r = probe_ollama(make_ctx(tmp_path, ollama_url=url))
    assert isinstance(r, Found)
    assert r.facts["version"] == "0.5.1"
    assert r.facts["models"] == [
        {
            "name": "mistral:latest",
            "size_bytes": 5137025024,
            "size_vram_bytes": 5137025024,
            "cpu_percent": 0,
            "context_length": None,
        }
    ]


def test_model_on_cpu(tmp_path: Path) -> None:
    with serve({"/api/version": (200, VERSION, 0), "/api/ps": (200, PS_CPU, 0)}) as url:
        r = probe_ollama(make_ctx(tmp_path, ollama_url=url))
    assert isinstance(r, Found) and r.facts["models"][0]["cpu_percent"] == 100


def test_not_running(tmp_path: Path) -> None:
    r = probe_ollama(make_ctx(tmp_path, ollama_url="http://127.0.0.1:9"))
    assert isinstance(r, Missing) and r.reason == "not_running"


@pytest.mark.parametrize(
    ("routes", "reason"),
    [
        ({"/api/version": (500, b"oops", 0.0)}, "http_error"),
        ({"/api/version": (200, b"<html>hello</html>", 0.0)}, "bad_reply"),
        (
            {"/api/version": (200, VERSION, 0.0), "/api/ps": (200, b'{"models": 3}', 0.0)},
            "bad_reply",
        ),
    ],
)
def test_broken_replies(tmp_path: Path, routes: dict, reason: str) -> None:  # type: ignore[type-arg]
    with serve(routes) as url:
        r = probe_ollama(make_ctx(tmp_path, ollama_url=url))
    assert isinstance(r, Failed) and r.reason == reason


def test_slow_server_times_out_within_deadline(tmp_path: Path) -> None:
    with serve({"/api/version": (200, VERSION, 3.0)}) as url:
        start = time.monotonic()
        r = probe_ollama(make_ctx(tmp_path, ollama_url=url, seconds=0.6))
        elapsed = time.monotonic() - start
    assert isinstance(r, Failed) and r.reason == "timeout"
    assert elapsed < 2.0


@pytest.mark.parametrize(
    ("host", "url"),
    [
        (None, "http://127.0.0.1:11434"),
        ("0.0.0.0", "http://127.0.0.1:11434"),
        ("0.0.0.0:8080", "http://127.0.0.1:8080"),
        ("http://gpu-box", "http://gpu-box:80"),
        ("https://gpu-box", "https://gpu-box:443"),
        ("[::1]:11500", "http://[::1]:11500"),
    ],
)
def test_ollama_host_like_ollama_reads_it(host: str | None, url: str) -> None:
    assert base_url(None, host)[0] == url


def test_explicit_url_wins() -> None:
    assert base_url("http://x:1/", "0.0.0.0") == ("http://x:1", "option")


def test_systemd_unit_settings(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "root",
        {
            "/etc/systemd/system/ollama.service": (
                "[Service]\nExecStart=/usr/bin/ollama serve --log-level debug\n"
                'Environment="OLLAMA_HOST=0.0.0.0"\n'
            ),
            "/etc/systemd/system/ollama.service.d/override.conf": (
                '[Service]\nEnvironment="OLLAMA_CUDA=1" "CUDA_VISIBLE_DEVICES=0"\n'
            ),
        },
    )
    ctx = make_ctx(tmp_path, root=root)
    assert unit_environment(ctx) == {
        "OLLAMA_HOST": "0.0.0.0",
        "OLLAMA_CUDA": "1",
        "CUDA_VISIBLE_DEVICES": "0",
    }
    assert "--log-level" in unit_exec_start(ctx)


def test_parse_ps_unknown_shares() -> None:
    models = parse_ps(
        {
            "models": [
                {"name": "a", "size": 0, "size_vram": 0},
                {"name": "b", "size": 10, "size_vram": 11},
            ]
        }
    )
    assert [m["cpu_percent"] for m in models] == [None, None]
    with pytest.raises(ValueError):
        parse_ps([])
