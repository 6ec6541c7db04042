"""The PyTorch and NCCL child processes: the real child scripts without torch, and the
orchestration against a fake Python that prints canned JSON, fails, hangs or prints garbage."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from gpuwise.parse.result import Failed, Found, Missing
from gpuwise.probe.nccl import probe_nccl_smoke
from gpuwise.probe.pytorch import parse_marker, probe_torch
from tests.probe.support import make_ctx

TORCH_OK = {
    "python": {
        "version": "3.11.9",
        "executable": "/opt/venv/bin/python",
        "venv": True,
        "conda": False,
    },
    "packages": {"torch": "2.7.1+cu128", "nvidia-cudnn-cu12": "9.7.1.26"},
    "torch": {
        "version": "2.7.1+cu128",
        "cuda": "12.8",
        "hip": None,
        "is_available": True,
        "devices": [{"index": 0, "name": "NVIDIA GeForce RTX 5090", "capability": "12.0"}],
        "arch_list": ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120", "compute_120"],
        "cudnn": 90701,
        "nccl": "2.26.2",
    },
    "warnings": [],
}


HAS_TORCH = importlib.util.find_spec("torch") is not None


def test_real_child_reports_torch_or_its_absence(tmp_path: Path) -> None:
    """The real child script in this interpreter: torch's facts where the dev extra installed
    the CPU wheel, a typed 'not installed' where it did not."""
    r = probe_torch(make_ctx(tmp_path, python=sys.executable, env={"PATH": "/usr/bin:/bin"}))
    if HAS_TORCH:
        assert isinstance(r, Found), r
        assert r.facts["torch"]["version"].split(".")[0] == "2"
        assert r.facts["torch"]["is_available"] is False  # no GPU here
    else:
        assert isinstance(r, Missing) and r.reason == "not_installed"
    assert r.facts["python"]["executable"]
    assert "nvidia-ml-py" in r.facts["packages"]


def test_real_nccl_child_runs_gloo_or_reports_torch_missing(tmp_path: Path) -> None:
    r = probe_nccl_smoke(make_ctx(tmp_path, python=sys.executable, seconds=60))
    if HAS_TORCH:
        assert isinstance(r, Found), r
        assert r.facts["backend"] == "gloo" and r.facts["correct"] is True
        assert r.facts["busbw_gbps"] > 0
    else:
        assert isinstance(r, Missing) and r.reason == "torch_missing"


def test_fake_python_reports_torch(tmp_path: Path) -> None:
    env = {"FAKE_PYTHON_JSON": json.dumps(TORCH_OK)}
    r = probe_torch(make_ctx(tmp_path, env=env))
    assert isinstance(r, Found)
    assert r.facts["torch"]["cuda"] == "12.8"


@pytest.mark.parametrize(("mode", "reason"), [("fail", "crashed"), ("garbage", "garbage")])
def test_fake_python_failures(tmp_path: Path, mode: str, reason: str) -> None:
    r = probe_torch(make_ctx(tmp_path, env={"FAKE_PYTHON_MODE": mode}))
    assert isinstance(r, Failed) and r.reason == reason


def test_fake_python_hang_times_out(tmp_path: Path) -> None:
    r = probe_torch(make_ctx(tmp_path, env={"FAKE_PYTHON_MODE": "hang"}, seconds=0.5))
    assert isinstance(r, Failed) and r.reason == "timeout"


def test_missing_python(tmp_path: Path) -> None:
    r = probe_torch(make_ctx(tmp_path, python=str(tmp_path / "nope")))
    assert isinstance(r, Missing) and r.reason == "python_not_found"


def test_broken_torch_import_is_a_failure(tmp_path: Path) -> None:
    data = {
        "python": {},
        "packages": {},
        "torch": None,
        "import_error": "OSError: libcudnn.so.9: cannot open shared object file",
    }
    r = probe_torch(make_ctx(tmp_path, env={"FAKE_PYTHON_JSON": json.dumps(data)}))
    assert isinstance(r, Failed) and r.reason == "import_failed" and "libcudnn" in r.detail


def test_nccl_smoke_orchestration(tmp_path: Path) -> None:
    ok = {
        "torch": "2.7.1",
        "backend": "nccl",
        "world_size": 2,
        "ok": True,
        "busbw_gbps": 180.5,
        "algbw_gbps": 180.5,
        "size_bytes": 67108864,
    }
    r = probe_nccl_smoke(make_ctx(tmp_path, env={"FAKE_PYTHON_JSON": json.dumps(ok)}))
    assert isinstance(r, Found) and r.facts["busbw_gbps"] == 180.5
    bad = {
        "torch": "2.7.1",
        "backend": "nccl",
        "world_size": 2,
        "ok": False,
        "error": "torch.distributed.DistBackendError: NCCL error: unhandled system error",
    }
    r = probe_nccl_smoke(make_ctx(tmp_path, env={"FAKE_PYTHON_JSON": json.dumps(bad)}))
    assert isinstance(r, Failed) and "unhandled system error" in r.detail
    hung = probe_nccl_smoke(make_ctx(tmp_path, env={"FAKE_PYTHON_MODE": "hang"}, seconds=0.5))
    assert isinstance(hung, Failed) and hung.reason == "timeout"


def test_marker_parsing() -> None:
    assert parse_marker('noise\nGPUWISE_JSON:{"a": 1}\n') == {"a": 1}
    assert parse_marker("GPUWISE_JSON:[1]") is None
    assert parse_marker("GPUWISE_JSON:{bad") is None
    assert parse_marker("nothing") is None
