"""Probes against fake tools first on PATH: they print, fail, hang or print garbage."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from gpuwise.parse.result import Failed, Found, Missing
from gpuwise.probe.amd import probe_amd
from gpuwise.probe.ascend import probe_ascend
from gpuwise.probe.container import probe_container
from gpuwise.probe.intel import probe_intel
from gpuwise.probe.smi import probe_nvidia_smi
from gpuwise.probe.toolkit import probe_toolkit
from tests.probe.support import FIXTURES, make_ctx

T4 = str(FIXTURES / "nvidia-smi" / "tesla-t4-515.105.01.xml")


def test_nvidia_smi_ok(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path, ("nvidia-smi",), {"FAKE_NVIDIA_SMI_FILE": T4})
    r = probe_nvidia_smi(ctx)
    assert isinstance(r, Found)
    assert r.facts["gpus"][0]["name"] == "Tesla T4"


def test_nvidia_smi_missing(tmp_path: Path) -> None:
    r = probe_nvidia_smi(make_ctx(tmp_path))
    assert isinstance(r, Missing) and r.reason == "not_installed"


@pytest.mark.parametrize(
    ("mode", "msg", "reason"),
    [
        (
            "fail",
            "Failed to initialize NVML: GPU access blocked by the operating system",
            "os_blocked",
        ),
        (
            "fail",
            "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
            "driver_not_loaded",
        ),
        ("fail", "No devices were found", "no_devices"),
        ("garbage", "", "garbage"),
        ("empty", "", "unknown"),
        ("crash", "", "unknown"),
    ],
)
def test_nvidia_smi_failures(tmp_path: Path, mode: str, msg: str, reason: str) -> None:
    env = {"FAKE_NVIDIA_SMI_MODE": mode, "FAKE_NVIDIA_SMI_MSG": msg}
    r = probe_nvidia_smi(make_ctx(tmp_path, ("nvidia-smi",), env))
    assert isinstance(r, Failed) and r.reason == reason


def test_nvidia_smi_hang_respects_deadline(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path, ("nvidia-smi",), {"FAKE_NVIDIA_SMI_MODE": "hang"}, seconds=0.5)
    start = time.monotonic()
    r = probe_nvidia_smi(ctx)
    assert isinstance(r, Failed) and r.reason == "timeout"
    assert time.monotonic() - start < 3


def test_several_nvcc_on_path(tmp_path: Path) -> None:
    out = tmp_path / "nvcc.txt"
    out.write_text("Cuda compilation tools, release 12.4, V12.4.131\n")
    ctx = make_ctx(tmp_path, ("nvcc",), {"FAKE_NVCC_FILE": str(out)})
    second = tmp_path / "other"
    second.mkdir()
    (second / "nvcc").write_text(
        "#!/bin/sh\necho 'Cuda compilation tools, release 11.8, V11.8.89'\n"
    )
    (second / "nvcc").chmod(0o755)
    ctx.env["PATH"] = ctx.env["PATH"] + f":{second}"
    r = probe_toolkit(ctx)
    assert isinstance(r, Found)
    assert [n["version"] for n in r.facts["nvcc"]] == ["12.4", "11.8"]


def test_nvcc_hang_gives_error_entry(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path, ("nvcc",), {"FAKE_NVCC_MODE": "hang"}, seconds=0.5)
    r = probe_toolkit(ctx)
    assert isinstance(r, Found) and r.facts["nvcc"][0]["error"] == "timeout"


def test_rocm_smi_ok_and_garbage(tmp_path: Path) -> None:
    mi = str(FIXTURES / "rocm-smi" / "mi100-x4-rocm-6.0.2.json")
    ok = probe_amd(make_ctx(tmp_path, ("rocm-smi",), {"FAKE_ROCM_SMI_FILE": mi}))
    assert isinstance(ok, Found) and len(ok.facts["cards"]) == 4
    bad = probe_amd(make_ctx(tmp_path, ("rocm-smi",), {"FAKE_ROCM_SMI_MODE": "garbage"}))
    assert isinstance(bad, Failed)
    assert isinstance(probe_amd(make_ctx(tmp_path / "x")), Missing)


def test_npu_smi(tmp_path: Path) -> None:
    txt = str(FIXTURES / "npu-smi" / "910b4-1-x2-npu-smi-25.2.0.txt")
    ok = probe_ascend(make_ctx(tmp_path, ("npu-smi",), {"FAKE_NPU_SMI_FILE": txt}))
    assert isinstance(ok, Found) and len(ok.facts["npus"]) == 2
    err = probe_ascend(
        make_ctx(
            tmp_path,
            ("npu-smi",),
            {
                "FAKE_NPU_SMI_MODE": "fail",
                "FAKE_NPU_SMI_MSG": "dcmi module initialize failed. ret is -8005",
            },
        )
    )
    assert isinstance(err, Failed) and err.reason == "dcmi" and err.facts["dcmi_code"] == -8005


def test_intel_tools(tmp_path: Path) -> None:
    out = tmp_path / "sycl.txt"
    out.write_text(
        "[level_zero:gpu][level_zero:0] Intel(R) Level-Zero, Intel(R) Arc(TM) A770 Graphics 1.3\n"
    )
    ok = probe_intel(
        make_ctx(
            tmp_path,
            ("sycl-ls", "xpu-smi"),
            {"FAKE_SYCL_LS_FILE": str(out), "FAKE_XPU_SMI_MODE": "fail"},
        )
    )
    assert isinstance(ok, Found) and len(ok.facts["gpus"]) == 1 and ok.facts["xpu_smi_ok"] is False
    assert isinstance(probe_intel(make_ctx(tmp_path / "y")), Missing)


def test_docker_daemon_and_toolkit(tmp_path: Path) -> None:
    info = tmp_path / "info.json"
    info.write_text(json.dumps({"ServerVersion": "27.1", "Runtimes": {"runc": {}, "nvidia": {}}}))
    ver = tmp_path / "ctk.txt"
    ver.write_text("NVIDIA Container Toolkit CLI version 1.17.3\ncommit: abc\n")
    env = {"FAKE_DOCKER_FILE": str(info), "FAKE_NVIDIA_CTK_FILE": str(ver)}
    r = probe_container(make_ctx(tmp_path, ("docker", "nvidia-ctk"), env))
    assert isinstance(r, Found)
    assert r.facts["docker"]["runtimes"] == ["nvidia", "runc"]
    assert r.facts["toolkit"]["nvidia_ctk_version"] == "1.17.3"


def test_docker_hang(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path, ("docker",), {"FAKE_DOCKER_MODE": "hang"}, seconds=0.5)
    r = probe_container(ctx)
    assert isinstance(r, Found) and r.facts["docker"]["daemon"] is False
