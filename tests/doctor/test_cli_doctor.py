"""`gpuwise doctor` end to end: on this machine, with fake tools on PATH, JSON and zh output,
exit codes, bad usage."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from tests.probe.ollama_server import serve
from tests.probe.support import FAKEBIN, FIXTURES, fake_path

NO_NVIDIA_HERE = (
    not os.path.exists("/proc/driver/nvidia/version") and shutil.which("nvidia-smi") is None
)


def test_this_machine_json(cli: Any) -> None:
    start = time.monotonic()
    res = cli("doctor", "--json", "--ollama-url", "http://127.0.0.1:9")
    elapsed = time.monotonic() - start
    assert res.code in (0, 1)
    report = res.json()
    assert set(report) >= {"summary", "findings", "facts", "exit_code", "elapsed_s", "sources"}
    for f in report["findings"]:
        assert set(f) >= {"id", "level", "title", "detail", "why", "fix", "commands"}
        assert f["level"] in ("ok", "info", "warn", "error")
    assert report["exit_code"] == res.code
    assert {"system", "kernel", "nvidia_smi", "nvml", "torch", "ollama"} <= set(report["facts"])
    assert elapsed < 10
    if NO_NVIDIA_HERE and not report["facts"]["kernel"]["facts"].get("pci_gpus"):
        assert "gpu.none" in [f["id"] for f in report["findings"]]


def test_table_output_in_chinese(cli: Any) -> None:
    res = cli("doctor", "--lang", "zh", "--ollama-url", "http://127.0.0.1:9")
    assert res.code in (0, 1)
    assert "本机情况" in res.out and "检查项" in res.out


@pytest.fixture
def fake_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Fake tools first on PATH: nvidia-smi reports the WSL 'blocked' error, no real tools."""
    monkeypatch.setenv("PATH", fake_path(tmp_path, "nvidia-smi"))
    monkeypatch.setenv("FAKE_NVIDIA_SMI_MODE", "fail")
    monkeypatch.setenv(
        "FAKE_NVIDIA_SMI_MSG",
        "Failed to initialize NVML: GPU access blocked by the operating system",
    )
    monkeypatch.setenv(
        "FAKE_PYTHON_JSON",
        json.dumps(
            {
                "python": {"version": "3.12.3", "executable": "/x/python"},
                "packages": {},
                "torch": None,
                "import_error": "ModuleNotFoundError: No module named 'torch'",
            }
        ),
    )
    return tmp_path


def test_blocked_gpu_is_an_error_exit_1(cli: Any, fake_machine: Path) -> None:
    docs = {
        "/api/version": (200, (FIXTURES / "ollama" / "api-version-docs.json").read_bytes(), 0.0),
        "/api/ps": (200, (FIXTURES / "ollama" / "api-ps-docs.json").read_bytes(), 0.0),
    }
    with serve(docs) as url:
        res = cli("doctor", "--json", "--python", str(FAKEBIN / "fake-python"), "--ollama-url", url)
    assert res.code == 1
    ids = [f["id"] for f in res.json()["findings"]]
    assert "nvidia.os_blocked" in ids and "ollama.ok" in ids


def test_table_shows_fix_commands(cli: Any, fake_machine: Path) -> None:
    res = cli(
        "doctor", "--python", str(FAKEBIN / "fake-python"), "--ollama-url", "http://127.0.0.1:9"
    )
    assert res.code == 1
    assert "[ERROR] GPU access blocked by the operating system" in res.out
    assert "wsl --update" in res.out


def test_nccl_smoke_through_the_cli(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", fake_path(tmp_path))
    ok = {
        "torch": "2.7.1",
        "backend": "gloo",
        "world_size": 2,
        "ok": True,
        "busbw_gbps": 3.5,
        "algbw_gbps": 3.5,
        "size_bytes": 1 << 26,
    }
    monkeypatch.setenv("FAKE_PYTHON_JSON", json.dumps(ok))
    res = cli(
        "doctor",
        "--json",
        "--nccl",
        "--timeout",
        "5",
        "--python",
        str(FAKEBIN / "fake-python"),
        "--ollama-url",
        "http://127.0.0.1:9",
    )
    report = res.json()
    assert report["facts"]["nccl_smoke"]["status"] == "found"
    assert "nccl.ok" in [f["id"] for f in report["findings"]]


def test_whole_run_respects_timeout(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", fake_path(tmp_path, "nvidia-smi", "nvcc", "docker"))
    for tool in ("NVIDIA_SMI", "NVCC", "DOCKER"):
        monkeypatch.setenv(f"FAKE_{tool}_MODE", "hang")
    monkeypatch.setenv("FAKE_PYTHON_MODE", "hang")
    start = time.monotonic()
    res = cli(
        "doctor",
        "--json",
        "--timeout",
        "1.5",
        "--python",
        str(FAKEBIN / "fake-python"),
        "--ollama-url",
        "http://127.0.0.1:9",
    )
    assert time.monotonic() - start < 3.0
    ids = [f["id"] for f in res.json()["findings"]]
    assert "nvidia.smi_hung" in ids and "torch.probe_timeout" in ids


@pytest.mark.parametrize(
    "args",
    [
        ("--timeout", "0"),
        ("--timeout", "abc"),
        ("--ollama-url", "ftp://host"),
        ("--python", "/no/such/python"),
        ("--no-such-flag",),
    ],
)
def test_bad_usage_exits_2(cli: Any, args: tuple[str, ...]) -> None:
    assert cli("doctor", *args).code == 2
