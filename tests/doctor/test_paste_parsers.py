"""`doctor --from`: each format's parser (pure functions, one module per format), any mix and
order of blocks, and the CLI's handling of files, stdin, encodings and bad input.

The short snippets below are written for these tests in each tool's format (a real report's
versions, not a recording); recorded outputs come from tests/fixtures (see its README)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from gpuwise.doctor.paste.assemble import assemble, find_blocks
from gpuwise.doctor.paste.model import Text
from gpuwise.parse.result import Failed, Found, as_dict
from tests.probe.support import FIXTURES

SMI_TABLE = """\
Tue Jan 14 10:02:11 2025
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 550.120                Driver Version: 550.120        CUDA Version: 12.4     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA GeForce RTX 4090        Off |   00000000:01:00.0  On |                  Off |
|  0%   45C    P8             22W /  450W |     512MiB /  24564MiB |      2%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+
"""
SMI_Q = """\
==============NVSMI LOG==============

Timestamp                                 : Mon Mar  3 10:00:00 2025
Driver Version                            : 535.183.01
CUDA Version                              : 12.2

Attached GPUs                             : 1
GPU 00000000:3B:00.0
    Product Name                          : Tesla V100-PCIE-32GB
    FB Memory Usage
        Total                             : 32768 MiB
        Used                              : 0 MiB
"""
COLLECT_ENV = """\
Collecting environment information...
PyTorch version: 2.5.1+cu124
Is debug build: False
CUDA used to build PyTorch: 12.4
ROCM used to build PyTorch: N/A

OS: Ubuntu 22.04.4 LTS (x86_64)
Python version: 3.11.9 (main, Apr 19 2024, 16:48:06) [GCC 11.2.0] (64-bit runtime)
Is CUDA available: True
CUDA runtime version: 12.1.105
GPU models and configuration: GPU 0: NVIDIA GeForce RTX 4090
Nvidia driver version: 550.120
cuDNN version: Could not collect

Versions of relevant libraries:
[pip3] numpy==1.26.4
[pip3] torch==2.5.1
"""
PIP_LIST = """\
Package                  Version
------------------------ ------------
numpy                    1.26.4
torch                    2.4.0+cu121
nvidia-cudnn-cu12        9.1.0.70
"""
CONDA_LIST = """\
# packages in environment at /home/u/miniconda3/envs/ml:
#
# Name                    Version                   Build  Channel
pytorch                   2.3.1           py3.11_cuda12.1_cudnn8.9.2_0    pytorch
pytorch-cuda              12.1                 ha16c6d3_5    pytorch
"""
DOCKER_INFO = """\
Server:
 Containers: 3
 Server Version: 24.0.7
 Cgroup Driver: systemd
 Runtimes: io.containerd.runc.v2 runc
 Default Runtime: runc
"""
DOCKER_ERR = """\
$ docker run --rm --gpus all nvidia/cuda:12.4.1-base-ubuntu22.04 nvidia-smi
docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].
"""
UNAME_OSREL = """\
$ uname -a
Linux DESKTOP-AB12 5.15.153.1-microsoft-standard-WSL2 #1 SMP Fri Mar 29 23:14:13 UTC 2024 \
x86_64 x86_64 x86_64 GNU/Linux
$ cat /etc/os-release
PRETTY_NAME="Ubuntu 22.04.4 LTS"
NAME="Ubuntu"
VERSION_ID="22.04"
ID=ubuntu
ID_LIKE=debian
"""
NCCL_LOG = """\
node1:1234:1234 [0] NCCL INFO NCCL version 2.21.5+cuda12.4
node1:1234:1250 [0] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : \
No space left on device
torch.distributed.DistBackendError: NCCL error in: \
../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error \
(run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5
"""
NVML_MISMATCH = """\
$ nvidia-smi
Failed to initialize NVML: Driver/library version mismatch
NVML library version: 535.183
"""
INSUFFICIENT = """\
Traceback (most recent call last):
  File "/home/u/.venv/lib/python3.10/site-packages/torch/cuda/__init__.py", line 302, in _lazy_init
    torch._C._cuda_init()
RuntimeError: CUDA driver version is insufficient for CUDA runtime version
"""
NO_KERNEL = """\
/opt/conda/lib/python3.10/site-packages/torch/cuda/__init__.py:230: UserWarning:
NVIDIA GeForce RTX 5080 with CUDA capability sm_120 is not compatible with the current \
PyTorch installation.
The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.
RuntimeError: CUDA error: no kernel image is available for execution on the device
"""
ROCM_TEXT = """\
$ rocminfo | grep gfx
  Name:                    gfx1031
$ ls -l /dev/kfd
crw-rw---- 1 root render 235, 0 Jan  2 10:00 /dev/kfd
"""
NVCC = """\
nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2024 NVIDIA Corporation
Cuda compilation tools, release 12.4, V12.4.131
Build cuda_12.4.r12.4/compiler.34097967_0
"""


def facts_of(*texts: str) -> dict[str, Any]:
    pasted = assemble(find_blocks([Text.of(f"p{i}.txt", t) for i, t in enumerate(texts)]))
    return pasted.facts


def kinds(text: str) -> list[str]:
    return [b.kind for _, b in find_blocks([Text.of("p.txt", text)])]


def test_nvidia_smi_table() -> None:
    assert kinds(SMI_TABLE) == ["nvidia-smi"]  # its "Driver Version" is no second block
    f = facts_of(SMI_TABLE)
    assert set(f) == {"nvidia_smi"}
    smi = f["nvidia_smi"].facts
    assert (smi["driver_version"], smi["cuda_version"]) == ("550.120", "12.4")
    assert smi["gpus"][0]["name"] == "NVIDIA GeForce RTX 4090"
    assert smi["gpus"][0]["memory_total_bytes"] == 24564 * 1024 * 1024


def test_nvidia_smi_q_text_and_xml() -> None:
    smi = facts_of(SMI_Q)["nvidia_smi"].facts
    assert (
        smi["driver_version"] == "535.183.01" and smi["gpus"][0]["name"] == "Tesla V100-PCIE-32GB"
    )
    xml = (FIXTURES / "nvidia-smi" / "tesla-t4-515.105.01.xml").read_text()
    assert kinds(xml) == ["nvidia-smi -q -x"]
    smi = facts_of(xml)["nvidia_smi"].facts
    assert smi["driver_version"] == "515.105.01" and smi["gpus"][0]["name"] == "Tesla T4"


def test_nvidia_smi_errors_become_failures() -> None:
    r = facts_of(NVML_MISMATCH)["nvidia_smi"]
    assert isinstance(r, Failed) and r.reason == "version_mismatch"
    assert "535.183" in r.detail


def test_collect_env() -> None:
    assert kinds(COLLECT_ENV) == ["collect_env"]
    f = facts_of(COLLECT_ENV)
    t = f["torch"].facts
    assert t["torch"]["version"] == "2.5.1+cu124" and t["torch"]["cuda"] == "12.4"
    assert t["torch"]["is_available"] is True
    assert t["driver_version"] == "550.120"
    assert t["python"]["version"] == "3.11.9"
    assert f["system"].facts["distro_id"] == "ubuntu"


@pytest.mark.parametrize(
    ("text", "version", "cuda"),
    [(PIP_LIST, "2.4.0+cu121", "12.1"), (CONDA_LIST, "2.3.1", "12.1")],
    ids=["pip list", "conda list"],
)
def test_package_lists(text: str, version: str, cuda: str) -> None:
    t = facts_of(text)["torch"].facts["torch"]
    assert (t["version"], t["cuda"]) == (version, cuda)


def test_docker_info_and_refused_gpu_request() -> None:
    d = facts_of(DOCKER_INFO)["container"].facts["docker"]
    assert d["runtimes"] == ["io.containerd.runc.v2", "runc"] and d["server_version"] == "24.0.7"
    d = facts_of(DOCKER_ERR)["container"].facts["docker"]
    assert "could not select device driver" in d["gpu_request_error"]


def test_uname_and_os_release_in_wsl() -> None:
    f = facts_of(UNAME_OSREL)
    assert f["wsl"].facts["version"] == 2
    s = f["system"].facts
    assert (s["distro_id"], s["distro_version"], s["package_manager"]) == ("ubuntu", "22.04", "apt")


def test_nccl_log_and_error() -> None:
    r = facts_of(NCCL_LOG)["nccl_smoke"]
    assert isinstance(r, Failed) and r.facts["nccl_version"] == "2.21.5"
    assert "posix_fallocate" in " ".join(r.facts["stderr_tail"])


def test_tracebacks() -> None:
    t = facts_of(INSUFFICIENT)["torch"].facts
    assert t["torch"]["driver_too_old"] is True
    t = facts_of(NO_KERNEL)["torch"].facts["torch"]
    assert t["no_kernel_image"] is True
    assert t["devices"][0]["capability"] == "12.0"
    assert "sm_120" not in t["arch_list"] and "sm_90" in t["arch_list"]


def test_rocm_json_text_and_kfd_listing() -> None:
    amd = facts_of((FIXTURES / "rocm-smi" / "rx6700xt-rocm-6.1.2.json").read_text())["amd"]
    assert amd.facts["cards"][0]["gfx"] == "gfx1031"
    f = facts_of(ROCM_TEXT)
    assert f["amd"].facts["cards"][0]["gfx"] == "gfx1031"
    assert f["kernel"].facts["devices"]["kfd_group"] == "render"


def test_lspci_amd_codename_becomes_a_gfx_target(cli: Any, tmp_path: Path) -> None:
    line = (
        "83:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Navi 22 "
        "[Radeon RX 6700/6700 XT/6750 XT / 6800M/6850M XT] (rev c1)\n"
    )
    card = facts_of(line)["amd"].facts["cards"][0]
    assert card["codename"] == "Navi 22" and card["gfx"] == ""  # the parser stays table-free
    paste = tmp_path / "p.txt"
    paste.write_text(line)
    report = cli("doctor", "--from", str(paste), "--json").json()
    assert report["facts"]["amd"]["facts"]["cards"][0]["gfx"] == "gfx1031"
    assert "amd.ok" not in [f["id"] for f in report["findings"]]  # lspci is not ROCm


def test_npu_smi_table_and_dcmi_error() -> None:
    text = (FIXTURES / "npu-smi" / "910b4-1-x2-npu-smi-25.2.0.txt").read_text()
    a = facts_of(text)["ascend"]
    assert isinstance(a, Found) and a.facts["npus"][0]["name"] == "910B4-1"
    a = facts_of("dcmi module initialize failed. ret is -8005\n")["ascend"]
    assert isinstance(a, Failed) and a.facts["dcmi_code"] == -8005


def test_nvcc_and_kernel_log() -> None:
    assert facts_of(NVCC)["toolkit"].facts["nvcc"][0]["version"] == "12.4"
    k = facts_of((FIXTURES / "reports" / "talos-8764-gt710-535.txt").read_text())["kmsg"]
    assert k.facts["legacy"][0]["branch"] == "470"


ALL = [SMI_TABLE, COLLECT_ENV, DOCKER_INFO, UNAME_OSREL, NCCL_LOG, NVCC, ROCM_TEXT]


def _dump(facts: dict[str, Any]) -> str:
    return json.dumps({k: as_dict(v) for k, v in sorted(facts.items())}, sort_keys=True)


def test_any_mix_and_order_gives_the_same_facts() -> None:
    noise = "Hi, I tried everything.\n\n```\n"
    one_file = facts_of(noise + "\n".join(ALL) + "```\nThanks!\n")
    reversed_files = facts_of(*reversed(ALL))
    separate = facts_of(*ALL)
    assert _dump(one_file) == _dump(separate) == _dump(reversed_files)
    assert {
        "nvidia_smi",
        "torch",
        "container",
        "system",
        "wsl",
        "nccl_smoke",
        "toolkit",
        "amd",
    } <= set(separate)


def test_plain_prose_is_recognised_as_nothing() -> None:
    assert kinds("My computer is slow. It has a fan and it gets hot.\nAny idea?\n") == []


# ---- the command line ----


def test_from_file_and_stdin_agree(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paste = tmp_path / "report.txt"
    paste.write_text(SMI_TABLE + PIP_LIST)
    a = cli("doctor", "--from", str(paste), "--json").json()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((SMI_TABLE + PIP_LIST).encode())))
    b = cli("doctor", "--from", "-", "--json").json()
    assert [f["id"] for f in a["findings"]] == [f["id"] for f in b["findings"]]
    assert "stdin" in json.dumps(b["paste"]["facts_from"])


def test_several_files_and_positional_extras(cli: Any, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(SMI_TABLE)
    (tmp_path / "b.txt").write_text(COLLECT_ENV)
    (tmp_path / "c.txt").write_text(UNAME_OSREL)
    res = cli(
        "doctor",
        "--from",
        str(tmp_path / "a.txt"),
        str(tmp_path / "b.txt"),
        "--from",
        str(tmp_path / "c.txt"),
        "--json",
    )
    report = res.json()
    where = json.dumps(report["paste"]["facts_from"])
    assert "a.txt" in where and "b.txt" in where and "c.txt" in where


@pytest.mark.parametrize(
    ("encoding", "bom"), [("utf-16-le", b"\xff\xfe"), ("gb18030", b""), ("utf-8", b"\xef\xbb\xbf")]
)
def test_windows_and_chinese_console_encodings(
    cli: Any, tmp_path: Path, encoding: str, bom: bytes
) -> None:
    paste = tmp_path / "report.txt"
    paste.write_bytes(bom + ("环境：\r\n" + SMI_TABLE.replace("\n", "\r\n")).encode(encoding))
    report = cli("doctor", "--from", str(paste), "--json").json()
    assert report["facts"]["nvidia_smi"]["facts"]["driver_version"] == "550.120"


@pytest.mark.parametrize(
    "case", ["missing", "directory", "binary", "too_large", "nothing", "conflict", "positional"]
)
def test_bad_input_is_one_clear_line(cli: Any, tmp_path: Path, case: str) -> None:
    target = tmp_path / "report.txt"
    args: tuple[str, ...] = ("doctor", "--from", str(target))
    if case == "directory":
        args = ("doctor", "--from", str(tmp_path))
    elif case == "binary":
        target.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00" * 10)
    elif case == "too_large":
        target.write_bytes(b"x" * (16 * 1024 * 1024 + 1))
    elif case == "nothing":
        target.write_text("just some words\n")
    elif case == "conflict":
        target.write_text(SMI_TABLE)
        args = (*args, "--nccl")
    elif case == "positional":
        target.write_text(SMI_TABLE)
        args = ("doctor", str(target))
    res = cli(*args)
    assert res.code == 2, (res.out, res.err)
    assert "Traceback" not in res.err and res.err.strip()
    assert len(res.err.strip().splitlines()) <= 3


def test_paste_report_in_chinese(cli: Any, tmp_path: Path) -> None:
    paste = tmp_path / "report.txt"
    paste.write_text((FIXTURES / "reports" / "fooocus-1313-driver-470.txt").read_text())
    res = cli("doctor", "--lang", "zh", "--from", str(paste))
    assert res.code == 1
    assert "粘贴" in res.out  # "diagnosis of pasted output", in Chinese
    assert "驱动" in res.out


PATHOLOGICAL = [
    "with CUDA capability sm_120 is not compatible with the current PyTorch installation. ",
    "torch_npu ",
    "undefined symbol ",
    "echo $LD_LIBRARY_PATH ",
    "dcmi ",
    "<nvidia_smi_log>",
    "==============NVSMI LOG==============\n",
    "Package Version\n------- -------\n",
    "amdgpu is not supported (supported types:[",
    '{"card0": {',
    "docker run -it ",
]


@pytest.mark.parametrize("anchor", PATHOLOGICAL)
def test_repeated_anchors_are_read_in_linear_time(anchor: str) -> None:
    """256 KB of one format's anchor, repeated on one line: once minutes (a pattern retried at
    every offset, a block re-parsed from every anchor), now well under a second."""
    import time

    text = (anchor * (256 * 1024 // len(anchor) + 1))[: 256 * 1024]
    start = time.perf_counter()
    assemble(find_blocks([Text.of("p.txt", text)]))
    assert time.perf_counter() - start < 3.0
