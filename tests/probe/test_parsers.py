"""Pure parsers of the vendor probes on recorded outputs (rocm-smi, npu-smi) and small texts."""

from __future__ import annotations

import pytest

from gpuwise.parse.npu_smi import parse_npu_smi_info
from gpuwise.parse.nvcc import parse_nvcc_version
from gpuwise.parse.os_release import package_manager, parse_os_release
from gpuwise.parse.rocm_smi import parse_rocm_smi_json
from gpuwise.probe.container import parse_docker_info
from gpuwise.probe.intel import parse_sycl_ls
from gpuwise.probe.kernel import parse_modules, parse_nvidia_proc_version
from gpuwise.probe.nccl import parse_conf
from gpuwise.probe.nvml import cuda_version_text
from gpuwise.probe.nvml_lib import throttle_names
from gpuwise.probe.wsl import installed_driver_packages, is_wsl
from tests.probe.support import FIXTURES


def test_rocm_smi_mi100_and_rx6700xt() -> None:
    mi100 = parse_rocm_smi_json((FIXTURES / "rocm-smi" / "mi100-x4-rocm-6.0.2.json").read_text())
    assert len(mi100["cards"]) == 4
    assert mi100["cards"][0]["name"] == "Arcturus GL-XL [Instinct MI100]"
    assert mi100["cards"][0]["memory_total_bytes"] == 34342961152
    rx = parse_rocm_smi_json((FIXTURES / "rocm-smi" / "rx6700xt-rocm-6.1.2.json").read_text())
    assert rx["cards"][0]["gfx"] == "gfx1031"
    assert rx["driver_version"] == "6.3.6"


@pytest.mark.parametrize("text", ["", "ERROR: GPU not found", "{broken"])
def test_rocm_smi_garbage(text: str) -> None:
    with pytest.raises(ValueError):
        parse_rocm_smi_json(text)


def test_npu_smi_910b() -> None:
    info = parse_npu_smi_info((FIXTURES / "npu-smi" / "910b4-1-x2-npu-smi-25.2.0.txt").read_text())
    assert info["version"] == "25.2.0"
    assert [n["npu"] for n in info["npus"]] == [0, 1]
    first = info["npus"][0]
    assert first["name"] == "910B4-1" and first["health"] == "OK"
    assert first["power_w"] == pytest.approx(91.3) and first["temperature_c"] == 33
    assert first["memory_total_bytes"] == 65536 * 1024 * 1024


def test_npu_smi_two_chips_one_npu() -> None:
    info = parse_npu_smi_info(
        (FIXTURES / "npu-smi" / "ascend910-2chip-npu-smi-25.3.rc1.txt").read_text()
    )
    assert [(n["npu"], n["chip"]) for n in info["npus"]] == [(0, 0), (0, 1)]
    assert info["npus"][1]["power_w"] is None  # "-" on the second chip
    assert info["npus"][1]["memory_used_bytes"] == 2896 * 1024 * 1024


@pytest.mark.parametrize("text", ["", "dcmi module initialize failed. ret is -8005", "|||"])
def test_npu_smi_garbage(text: str) -> None:
    with pytest.raises(ValueError):
        parse_npu_smi_info(text)


def test_nvcc_version() -> None:
    text = (
        "Cuda compilation tools, release 13.0, V13.0.88\nBuild cuda_13.0.r13.0/compiler.36424714_0"
    )
    assert parse_nvcc_version(text) == "13.0"
    assert parse_nvcc_version("garbage") == ""


def test_os_release_and_package_manager() -> None:
    ubuntu = parse_os_release('NAME="Ubuntu"\nID=ubuntu\nID_LIKE=debian\nVERSION_ID="22.04"\n')
    assert ubuntu["VERSION_ID"] == "22.04"
    assert package_manager(ubuntu, {}) == "apt"
    rocky = parse_os_release('ID="rocky"\nID_LIKE="rhel centos fedora"\n')
    assert package_manager(rocky, {"dnf": True}) == "dnf"
    assert package_manager({"ID": "centos"}, {"yum": True, "dnf": False}) == "yum"
    assert package_manager({}, {"zypper": True}) == "zypper"
    assert package_manager({}, {}) == ""


def test_wsl_detection() -> None:
    assert is_wsl("5.15.153.1-microsoft-standard-WSL2", {}) == 2
    assert is_wsl("4.4.0-19041-Microsoft", {}) == 1
    assert is_wsl("6.8.0-45-generic", {}) == 0


def test_dpkg_driver_packages() -> None:
    status = (
        "Package: nvidia-driver-550\nStatus: install ok installed\n\n"
        "Package: nvidia-utils-550\nStatus: deinstall ok config-files\n\n"
        "Package: libnvidia-compute-550\nStatus: install ok installed\n\n"
        "Package: cuda-toolkit-12-4\nStatus: install ok installed\n"
    )
    assert installed_driver_packages(status) == ["libnvidia-compute-550", "nvidia-driver-550"]


def test_docker_info() -> None:
    up = parse_docker_info(
        '{"ServerVersion":"27.1.1","Runtimes":{"runc":{},"nvidia":{}},"DefaultRuntime":"runc","CDISpecDirs":["/etc/cdi"]}'
    )
    assert up["daemon"] and up["runtimes"] == ["nvidia", "runc"]
    down = parse_docker_info(
        '{"ServerVersion":"","ServerErrors":["Cannot connect to the Docker daemon"]}'
    )
    assert down["daemon"] is False and "Cannot connect" in down["error"]
    assert parse_docker_info("garbage")["daemon"] is False


def test_loaded_modules_and_the_nvidia_module_version_are_read() -> None:
    mods = parse_modules("nvidia_uvm 1 0 - Live\nnvidia 2 1 nvidia_uvm, Live\nnouveau 3 0 - Live\n")
    assert mods == ["nvidia_uvm", "nvidia", "nouveau"]
    v = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.14  Release Build"
    assert parse_nvidia_proc_version(v) == "550.54.14"
    v2 = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023"
    assert parse_nvidia_proc_version(v2) == "535.104.05"


def test_cuda_version_text_and_throttle_bit_names() -> None:
    assert cuda_version_text(12040) == "12.4"
    assert cuda_version_text(13010) == "13.1"
    assert throttle_names(0x1 | 0x40) == ["gpu_idle", "hw_thermal_slowdown"]
    assert throttle_names(None) == []


def test_sycl_ls_and_nccl_conf() -> None:
    out = (
        "[opencl:cpu][opencl:0] Intel(R) OpenCL, CPU\n"
        "[level_zero:gpu][level_zero:0] Intel(R) Level-Zero, Intel(R) Arc(TM) A770 Graphics 1.3\n"
    )
    assert len(parse_sycl_ls(out)) == 1
    assert parse_conf("NCCL_P2P_DISABLE=1  # temp\n# comment\nNCCL_DEBUG = WARN\n") == {
        "NCCL_P2P_DISABLE": "1",
        "NCCL_DEBUG": "WARN",
    }
