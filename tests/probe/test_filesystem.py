"""File-based probes on a fake root: WSL, kernel modules and PCI devices, containers."""

from __future__ import annotations

from pathlib import Path

from gpuwise.parse.result import Found, Missing
from gpuwise.probe.container import probe_container
from gpuwise.probe.kernel import probe_kernel
from gpuwise.probe.nccl import probe_nccl_env
from gpuwise.probe.system import probe_system
from gpuwise.probe.wsl import probe_wsl
from tests.probe.support import make_ctx, write_tree


def test_wsl2_with_a_linux_driver_inside(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "root",
        {
            "/proc/sys/kernel/osrelease": "5.15.153.1-microsoft-standard-WSL2\n",
            "/dev/dxg": "",
            "/usr/lib/wsl/lib/libcuda.so.1": "",
            "/usr/bin/nvidia-smi": "",
            "/var/lib/dpkg/status": "Package: nvidia-utils-535\nStatus: install ok installed\n",
        },
    )
    r = probe_wsl(make_ctx(tmp_path, root=root, env={"WSL_DISTRO_NAME": "Ubuntu-22.04"}))
    assert isinstance(r, Found)
    assert r.facts["version"] == 2 and r.facts["dxg"] and r.facts["wsl_libcuda"]
    assert r.facts["linux_driver_packages"] == ["nvidia-utils-535"]
    assert r.facts["linux_nvidia_smi"] is True


def test_not_wsl(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "root", {"/proc/sys/kernel/osrelease": "6.8.0-45-generic\n"})
    assert isinstance(probe_wsl(make_ctx(tmp_path, root=root)), Missing)


def test_kernel_pci_gpu_without_driver(tmp_path: Path) -> None:
    dev = "/sys/bus/pci/devices/0000:01:00.0"
    npu = "/sys/bus/pci/devices/0000:9d:00.0"
    root = write_tree(
        tmp_path / "root",
        {
            "/proc/modules": "nouveau 2760704 0 - Live 0x0\n",
            f"{dev}/class": "0x030000\n",
            f"{dev}/vendor": "0x10de\n",
            f"{dev}/device": "0x2684\n",
            f"{npu}/class": "0x120000\n",
            f"{npu}/vendor": "0x19e5\n",
            f"{npu}/device": "0xd802\n",
            "/sys/bus/pci/devices/0000:00:02.0/class": "0x060400\n",
            "/sys/bus/pci/devices/0000:00:02.0/vendor": "0x8086\n",
        },
    )
    r = probe_kernel(make_ctx(tmp_path, root=root))
    assert isinstance(r, Found)
    assert r.facts["modules"] == ["nouveau"]
    assert [(d["vendor"], d["device_id"]) for d in r.facts["pci_gpus"]] == [
        ("nvidia", "0x2684"),
        ("huawei", "0xd802"),
    ]
    assert r.facts["nvidia_module_version"] == ""


def test_kernel_driver_loaded(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "root",
        {
            "/proc/modules": "nvidia_uvm 1 0 - Live\nnvidia 2 1 nvidia_uvm, Live\n",
            "/proc/driver/nvidia/version": (
                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22\n"
            ),
            "/dev/nvidia0": "",
            "/dev/nvidiactl": "",
        },
    )
    r = probe_kernel(make_ctx(tmp_path, root=root))
    assert isinstance(r, Found)
    assert r.facts["modules"] == ["nvidia", "nvidia_uvm"]
    assert r.facts["nvidia_module_version"] == "550.54.14"
    assert r.facts["devices"]["nvidia"] == ["nvidia0", "nvidiactl"]


def test_inside_docker_with_nvidia_env(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "root", {"/.dockerenv": ""})
    r = probe_container(make_ctx(tmp_path, root=root, env={"NVIDIA_VISIBLE_DEVICES": "all"}))
    assert isinstance(r, Found)
    assert r.facts["in_container"] and r.facts["runtime"] == "docker"
    assert r.facts["nvidia_visible_devices"] == "all"
    assert r.facts["docker"] == {"installed": False}


def test_nccl_env_and_conf(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "root", {"/etc/nccl.conf": "NCCL_P2P_DISABLE=1\n"})
    ctx = make_ctx(tmp_path, root=root, env={"NCCL_IB_DISABLE": "1", "OTHER": "x"})
    r = probe_nccl_env(ctx)
    assert isinstance(r, Found)
    assert r.facts["env"] == {"NCCL_IB_DISABLE": "1"}
    assert r.facts["files"]["/etc/nccl.conf"] == {"NCCL_P2P_DISABLE": "1"}


def test_system_reads_os_release(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "root",
        {"/etc/os-release": 'ID=ubuntu\nVERSION_ID="24.04"\nPRETTY_NAME="Ubuntu 24.04 LTS"\n'},
    )
    r = probe_system(make_ctx(tmp_path, root=root, env={"CUDA_VISIBLE_DEVICES": "-1"}))
    assert isinstance(r, Found)
    assert r.facts["distro_id"] == "ubuntu" and r.facts["package_manager"] == "apt"
    assert r.facts["cuda_visible_devices"] == "-1"
