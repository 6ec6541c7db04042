"""NVIDIA driver and GPU-health rules, on recorded nvidia-smi outputs and typed failures.

Covers the guide's §7 rows: "GPU access blocked by the operating system" (WSL2), "nvidia-smi
shows 0 GPUs" on a cloud instance, "CUDA out of memory" (memory held by another process).
"""

from __future__ import annotations

from gpuwise.doctor.model import exit_code
from gpuwise.parse.result import Failed, Found, Missing
from tests.doctor import build as b


def test_machine_without_gpu_says_so_plainly() -> None:
    findings = b.run(b.machine())
    assert "gpu.none" in b.ids(findings)
    assert not [f for f in findings if f.id.startswith("nvidia.")]
    assert exit_code(findings) == 0


def test_os_blocked_on_wsl2_with_stray_linux_driver() -> None:
    facts = b.machine(
        wsl=Found(
            {
                "version": 2,
                "dxg": True,
                "wsl_libcuda": True,
                "linux_driver_packages": ["nvidia-utils-535"],
                "kernel": "5.15",
            }
        ),
        nvidia_smi=Failed(
            "os_blocked", "Failed to initialize NVML: GPU access blocked by the operating system"
        ),
        nvml=Failed("os_blocked", "NVML error 17"),
    )
    findings = b.run(facts)
    f = b.by_id(findings, "nvidia.os_blocked")
    assert f.level == "error"
    assert "wsl --update" in f.commands and "nvidia-smi -g 0 -dm 0" in f.commands
    assert any("apt-get purge" in c and "nvidia-utils-535" in c for c in f.commands)
    assert "wsl.linux_driver" in b.ids(findings)
    assert exit_code(findings) == 1


def test_driver_not_loaded_because_of_nouveau_and_secure_boot() -> None:
    facts = b.machine(
        kernel=b.kernel(modules=["nouveau"], pci_gpus=b.nvidia_pci(), secure_boot=True),
        nvidia_smi=Failed(
            "driver_not_loaded",
            "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
        ),
        nvml=Failed("driver_not_loaded", "Driver Not Loaded"),
    )
    f = b.by_id(b.run(facts), "nvidia.driver_not_loaded_nouveau")
    assert any("blacklist nouveau" in c for c in f.commands)
    assert "mokutil --sb-state" in f.commands


def test_cloud_instance_without_gpu_shows_zero() -> None:
    facts = b.machine(
        nvidia_smi=Failed("no_devices", "No devices were found"),
        kernel=b.kernel(modules=["nvidia"]),
    )
    f = b.by_id(b.run(facts), "nvidia.zero_gpus_no_device")
    assert f.level == "error"


def test_zero_gpus_with_device_on_bus() -> None:
    facts = b.machine(
        nvml=b.nvml("550.54.14", "12.4", []), kernel=b.kernel(pci_gpus=b.nvidia_pci())
    )
    assert "nvidia.zero_gpus" in b.ids(b.run(facts))


def test_gpu_on_bus_without_driver_ubuntu_and_rocky() -> None:
    ubuntu = b.run(b.machine(kernel=b.kernel(pci_gpus=b.nvidia_pci(2))))
    f = b.by_id(ubuntu, "nvidia.no_driver")
    assert f.params["count"] == 2 and "sudo ubuntu-drivers install" in f.commands
    rocky = b.run(
        b.machine(
            kernel=b.kernel(pci_gpus=b.nvidia_pci()),
            system=b.system(distro_id="rocky", package_manager="dnf"),
        )
    )
    assert "sudo dnf install -y cuda-drivers" in b.by_id(rocky, "nvidia.no_driver").commands


def test_t4_ok_and_narrow_pcie_link() -> None:
    findings = b.run(b.machine(nvidia_smi=b.smi("tesla-t4-515.105.01.xml")))
    ok = b.by_id(findings, "nvidia.ok")
    assert ok.params["driver"] == "515.105.01" and ok.params["cuda"] == "11.7"
    narrow = b.by_id(findings, "nvidia.pcie_narrow")
    assert (narrow.params["width"], narrow.params["max"]) == (8, 16)


def test_another_process_holds_most_memory() -> None:
    findings = b.run(b.machine(nvidia_smi=b.smi("rtx-pro-6000-blackwell-590.44.01.xml")))
    f = b.by_id(findings, "nvidia.memory_held")
    assert "llama-server" in f.params["who"] and f.params["held_gib"] == 64.2
    assert any(c.startswith("kill ") for c in f.commands)
    assert "out of memory" in f.text("why")


def test_mig_is_reported() -> None:
    assert "nvidia.mig" in b.ids(
        b.run(b.machine(nvidia_smi=b.smi("a100-sxm4-80gb-mig-535.54.03.xml")))
    )


def test_ecc_errors_and_throttling() -> None:
    sick = b.gpu(
        "NVIDIA H100 80GB HBM3",
        "9.0",
        ecc_uncorrected_volatile=3,
        throttle_active=["hw_thermal_slowdown", "sw_power_cap"],
        temperature_c=92.0,
    )
    worn = b.gpu(
        index=1,
        ecc_uncorrected_aggregate=1,
        retired_pending=True,
        throttle_active=["hw_power_brake_slowdown"],
    )
    findings = b.run(b.machine(nvml=b.nvml("550.54.14", "12.4", [sick, worn])))
    assert b.by_id(findings, "nvidia.ecc_uncorrected").level == "error"
    assert b.by_id(findings, "nvidia.ecc_history").level == "warn"
    assert "hw_thermal_slowdown" in b.by_id(findings, "nvidia.throttle_thermal").params["reasons"]
    assert b.by_id(findings, "nvidia.throttle_power").params["gpu"] == 1
    assert exit_code(findings) == 1


def test_version_mismatch_and_lost_gpu() -> None:
    mismatch = b.run(
        b.machine(
            nvidia_smi=Failed(
                "version_mismatch", "Failed to initialize NVML: Driver/library version mismatch"
            )
        )
    )
    assert "sudo reboot" in b.by_id(mismatch, "nvidia.version_mismatch").commands
    lost = b.run(b.machine(nvml=Failed("gpu_lost", "GPU is lost")))
    assert b.by_id(lost, "nvidia.gpu_lost").level == "error"


def test_nvidia_smi_garbage_and_hang() -> None:
    garbage = b.run(b.machine(nvidia_smi=Failed("garbage", "no <nvidia_smi_log> element")))
    assert b.by_id(garbage, "nvidia.smi_error").level == "warn"
    hung = b.run(
        b.machine(
            nvidia_smi=Failed("timeout", "nvidia-smi did not answer"),
            nvml=Missing("library_not_found"),
        )
    )
    assert "nvidia.smi_hung" in b.ids(hung)
