"""Facts the doctor gathers beyond the vendor tools: the kernel log, who may open the device
nodes, the user-space driver libraries and packages, ld.so.conf, DMI, the running Ollama server's
own environment, the Ascend CANN/driver versions and DCMI errors, and the libraries the PyTorch
child actually loaded."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

import pytest

from gpuwise.parse.kmsg import parse_kmsg
from gpuwise.parse.npu_smi import parse_dcmi_error
from gpuwise.parse.ollama import relevant
from gpuwise.parse.result import Failed, Found, Missing
from gpuwise.probe import _torch_child
from gpuwise.probe.ascend import probe_ascend
from gpuwise.probe.kernel import (
    dpkg_nvidia,
    identity,
    ld_conf_dirs,
    ld_conf_gpu_libs,
    node_access,
    parse_status_ids,
    probe_kernel,
    userspace_versions,
)
from gpuwise.probe.kmsg import probe_kmsg
from gpuwise.probe.ollama import server_process
from tests.probe.support import FIXTURES, make_ctx, write_tree

REPORTS = FIXTURES / "reports"
TOOLKIT = "/usr/local/Ascend/ascend-toolkit"
SITE = "/opt/venv/lib/python3.11/site-packages"


def test_kmsg_legacy_branch_wrapped_over_lines() -> None:
    k = parse_kmsg((REPORTS / "nixos-hardware-1880-gtx1050-595.txt").read_text())
    assert k["legacy"] == [
        {"gpu": "NVIDIA GeForce GTX 1050", "branch": "580", "driver": "595.71.05"}
    ]
    assert k["no_gpu_found"]


def test_kmsg_fallen_off_bus_and_module_version() -> None:
    k = parse_kmsg((REPORTS / "nvsentinel-155-fallen-off-bus.txt").read_text())
    assert k["fallen_off_bus"]
    assert k["module_version"] == "570.158.01"


def test_kmsg_xid_and_api_mismatch() -> None:
    text = (
        "[ 12.1] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the "
        "bus.\n"
        "[ 13.0] NVRM: API mismatch: the client has the version 535.104.05, but\n"
        "[ 13.0] NVRM: this kernel module has the version 535.86.10.  Please\n"
        "[ 14.0] usb 1-1: new high-speed USB device\n"
    )
    k = parse_kmsg(text)
    assert k["xids"] == [
        {
            "pci": "0000:3b:00",
            "code": 79,
            "text": "pid=1234, name=python, GPU has fallen off the bus.",
        }
    ]
    assert k["fallen_off_bus"]
    assert k["api_mismatch"] == {"client": "535.104.05", "kernel": "535.86.10"}
    assert all("usb" not in ln for ln in k["lines"])


def test_kmsg_probe_not_permitted(tmp_path: Path) -> None:
    env = {
        "FAKE_DMESG_MODE": "fail",
        "FAKE_DMESG_MSG": "dmesg: read kernel buffer failed: Operation not permitted",
    }
    r = probe_kmsg(make_ctx(tmp_path, tools=("dmesg",), env=env))
    assert isinstance(r, Missing) and r.reason == "not_permitted"


def _other(taken: int) -> int:
    return 1000 if taken != 1000 else 1001


def test_identity_and_node_access(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "root",
        {
            "/dev/kfd": "",
            "/dev/dri/renderD128": "",
            "/etc/group": f"render:x:{os.getgid()}:\nvideo:x:{_other(os.getgid())}:\n",
        },
    )
    (root / "dev/kfd").chmod(0o660)
    (root / "dev/dri/renderD128").chmod(0o666)
    uid = _other(os.getuid())
    gid = _other(os.getgid())
    status = f"Uid:\t{uid}\t{uid}\t{uid}\t{uid}\nGid:\t{gid}\t0\t0\t0\nGroups:\t{gid}\n"
    write_tree(root, {"/proc/self/status": status})
    ctx = make_ctx(tmp_path, root=root)
    who = identity(ctx)
    assert who["uid"] == uid and who["groups"] == ["video"]
    kfd = node_access(ctx, "/dev/kfd", who)
    assert kfd == {"group": "render", "mode": "0o660", "rw": False}
    assert node_access(ctx, "/dev/dri/renderD128", who)["rw"] is True  # type: ignore[index]
    in_render = {**who, "gids": [os.getgid()]}
    assert node_access(ctx, "/dev/kfd", in_render)["rw"] is True  # type: ignore[index]
    assert node_access(ctx, "/dev/missing", who) is None
    assert parse_status_ids("Uid:\t0\t0\t0\t0\nGroups:\n") == (0, [])


def test_driver_libraries_packages_and_ld_conf(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "root",
        {
            "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.525.85.12": "",
            "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1": "",
            "/etc/ld.so.conf": "include /etc/ld.so.conf.d/*.conf\n",
            "/etc/ld.so.conf.d/cuda.conf": "/usr/local/cuda/lib64  # toolkit\n/opt/empty\n",
            "/usr/local/cuda/lib64/libcudnn.so.8": "",
            "/usr/local/cuda/lib64/libcublas.so.11": "",
            "/proc/modules": "nvidia 56823808 0 - Live 0x0\n",
            "/proc/driver/nvidia/version": "NVRM version: NVIDIA UNIX x86_64 Kernel Module  "
            "520.56.06  Thu Oct  6 2022\n",
            "/var/lib/dpkg/status": (
                "Package: nvidia-driver-525\nStatus: install ok half-configured\nVersion: "
                "525.85.12-0ubuntu1\n\n"
                "Package: vim\nStatus: install ok installed\nVersion: 9.0\n\n"
                "Package: libnvidia-compute-525\nStatus: install ok installed\nVersion: "
                "525.85.12-0ubuntu1\n"
            ),
            "/sys/class/dmi/id/sys_vendor": "Amazon EC2\n",
        },
    )
    ctx = make_ctx(tmp_path, root=root)
    assert userspace_versions(ctx) == ["525.85.12"]
    pkgs = dpkg_nvidia(ctx.read("/var/lib/dpkg/status") or "")
    assert [p["name"] for p in pkgs] == ["nvidia-driver-525", "libnvidia-compute-525"]
    assert pkgs[0]["status"] == "install ok half-configured"
    dirs = ld_conf_dirs(ctx)
    assert dirs == ["/usr/local/cuda/lib64", "/opt/empty"]
    assert ld_conf_gpu_libs(ctx, dirs) == {
        "/usr/local/cuda/lib64": ["libcublas.so.11", "libcudnn.so.8"]
    }
    r = probe_kernel(ctx)
    assert isinstance(r, Found)
    assert r.facts["nvidia_module_version"] == "520.56.06"
    assert r.facts["nvidia_userspace_versions"] == ["525.85.12"]
    assert r.facts["dmi"]["sys_vendor"] == "Amazon EC2"


def test_running_ollama_server_and_its_environment(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "root",
        {
            "/proc/17/comm": "bash\n",
            "/proc/4242/comm": "ollama\n",
            "/proc/4242/cmdline": "/usr/bin/ollama\0serve\0",
            "/proc/4242/stat": "4242 (ollama) S 17 4242 0 0",
            "/proc/4242/environ": (
                "PATH=/usr/bin\0HSA_OVERRIDE_GFX_VERSION=10.3.0\0"
                "CUDA_HOME=/usr/local/cuda\0OLLAMA_HOST=0.0.0.0\0"
            ),
            "/proc/5000/comm": "ollama\n",  # a client (`ollama run`), not the server
            "/proc/5000/cmdline": "ollama\0run\0llama3\0",
        },
    )
    srv = server_process(make_ctx(tmp_path, root=root))
    assert srv["pid"] == 4242 and srv["ppid"] == 17 and srv["parent"] == "bash"
    assert srv["env"] == {"HSA_OVERRIDE_GFX_VERSION": "10.3.0", "OLLAMA_HOST": "0.0.0.0"}


@pytest.mark.parametrize(
    ("key", "counts"),
    [
        ("OLLAMA_MODELS", True),
        ("HSA_OVERRIDE_GFX_VERSION", True),
        ("ROCR_VISIBLE_DEVICES", True),
        ("HIP_VISIBLE_DEVICES", True),
        ("CUDA_VISIBLE_DEVICES", True),
        ("GPU_DEVICE_ORDINAL", True),
        ("CUDA_HOME", False),
        ("CUDA_PATH", False),
        ("LD_LIBRARY_PATH", False),
        ("OLLAMA", False),
    ],
)
def test_only_ollama_settings_count_as_ollama_config(key: str, counts: bool) -> None:
    assert relevant(key) is counts


def test_ascend_dcmi_error_and_versions(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "root",
        {
            "/dev/davinci7": "",
            "/dev/davinci_manager": "",
            f"{TOOLKIT}/latest/aarch64-linux/ascend_toolkit_install.info": (
                "package_name=Ascend-cann-toolkit\nversion=8.0.RC3\n"
            ),
            "/usr/local/Ascend/driver/version.info": "Version=24.1.rc2\n",
        },
    )
    msg = (
        "DrvMngGetConsoleLogLevel failed. (g_conLogLevel=3)\n"
        "dcmi module initialize failed. ret is -8005"
    )
    env = {"FAKE_NPU_SMI_MODE": "fail", "FAKE_NPU_SMI_MSG": msg}
    r = probe_ascend(make_ctx(tmp_path, tools=("npu-smi",), env=env, root=root))
    assert isinstance(r, Failed) and r.reason == "dcmi"
    assert r.facts["dcmi_code"] == -8005
    assert r.facts["davinci"] == ["davinci7"]
    assert r.facts["cann_version"] == "8.0.RC3" and r.facts["driver_version"] == "24.1.rc2"
    assert parse_dcmi_error("ret is -8020") == -8020 and parse_dcmi_error("all fine") is None


MAPS = """\
7f00-7f01 r-xp 00000000 08:01 1 /opt/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so
7f01-7f02 r-xp 00000000 08:01 2 /usr/local/cuda/lib64/libcudnn.so.8.2.4
7f02-7f03 r--p 00000000 08:01 2 /usr/local/cuda/lib64/libcudnn.so.8.2.4
7f03-7f04 r-xp 00000000 08:01 3 \
/opt/venv/lib/python3.11/site-packages/nvidia/cublas/lib/libcublas.so.12
7f04-7f05 rw-p 00000000 00:00 0
7f05-7f06 r-xp 00000000 08:01 4 /usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14
"""


def test_torch_child_reads_the_libraries_it_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    real_open = open

    def fake_open(path: Any, *args: Any, **kwargs: Any) -> Any:
        return io.StringIO(MAPS) if path == "/proc/self/maps" else real_open(path, *args, **kwargs)

    monkeypatch.setattr("builtins.open", fake_open)
    assert _torch_child.loaded_libraries() == {
        "libcublas.so.12": f"{SITE}/nvidia/cublas/lib/libcublas.so.12",
        "libcuda.so.550.54.14": "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14",
        "libcudnn.so.8.2.4": "/usr/local/cuda/lib64/libcudnn.so.8.2.4",
    }
