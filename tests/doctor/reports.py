"""Real GPU-environment problems people reported publicly, each with the cause established in
its thread, replayed two ways: as a faked machine (tests/doctor/machine.py) and as the pasted
text (tests/fixtures/reports/<id>.txt, trimmed from the report) given to `doctor --from`.

Where a report does not state a detail the faked machine needs (a driver version, a distro),
`assumed` says what was filled in; nothing in the pasted text is made up.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tests.doctor.machine import Machine, pci, smi_xml, torch_json
from tests.probe.support import FIXTURES

REPORTS = FIXTURES / "reports"
RX6700XT = (FIXTURES / "rocm-smi" / "rx6700xt-rocm-6.1.2.json").read_text()
NPU_910B = (FIXTURES / "npu-smi" / "910b4-1-x2-npu-smi-25.2.0.txt").read_text()
CU124 = ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]
CU128_28 = ["sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
CU128_211 = ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
SECURE_BOOT_VAR = "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"
CANN_INFO = "/usr/local/Ascend/ascend-toolkit/latest/aarch64-linux/ascend_toolkit_install.info"
NATIVE_FORBID = ("--gpus", "docker run")
CONTAINER_FORBID = ("modprobe", "ubuntu-drivers", "reboot", "apt-get install", "dkms")
DEBIAN = (
    'NAME="Debian GNU/Linux"\nVERSION_ID="12"\nID=debian\n'
    'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n'
)


@dataclass(frozen=True)
class Case:
    """One public report: where, what caused it, and what the doctor must conclude."""

    id: str
    url: str
    cause: str
    expect: str  # id of the first problem (error or warning) for the pasted text
    machine: Machine
    expect_machine: str = ""  # when the faked machine shows more (or less) than the paste
    forbid: tuple[str, ...] = ()  # substrings no runnable command may contain
    require: tuple[str, ...] = ()  # substrings the first problem's commands/texts must contain
    assumed: str = ""
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def paste(self) -> str:
        return str(REPORTS / f"{self.id}.txt")


def _nvidia_host(
    driver: str,
    cuda: str,
    gpus: list[tuple[str, int]],
    *,
    files: dict[str, str] | None = None,
    python: dict[str, Any] | None = None,
    ollama: dict[str, Any] | None = None,
    container: bool = False,
) -> Machine:
    """A Linux machine (or container) whose NVIDIA driver answers with these GPUs."""
    tree = {
        **pci(),
        "/proc/modules": "nvidia 56823808 0 - Live 0x0\n",
        "/proc/driver/nvidia/version": (
            f"NVRM version: NVIDIA UNIX x86_64 Kernel Module  {driver}  Thu Jan 1\n"
        ),
        "/dev/nvidia0": "",
        "/dev/nvidiactl": "",
        **(files or {}),
    }
    tools = {"nvidia-smi": ("ok", smi_xml(driver, cuda, gpus))}
    return Machine(files=tree, tools=tools, python=python, ollama=ollama, container=container)


CASES: tuple[Case, ...] = (
    Case(
        id="pytorch-167244-rtx5090-cu124",
        url="https://github.com/pytorch/pytorch/issues/167244",
        cause="RTX 5090 (sm_120) with a cu124 PyTorch build, which has no Blackwell code: needs "
        "cu128+",
        expect="torch.gpu_too_new",
        machine=_nvidia_host(
            "570.124.06",
            "12.8",
            [("NVIDIA GeForce RTX 5090", 32607)] * 2,
            python=torch_json(
                "2.7.0.dev20250310+cu124",
                "12.4",
                arch_list=CU124,
                devices=[{"index": 0, "name": "NVIDIA GeForce RTX 5090", "capability": "12.0"}],
            ),
        ),
        forbid=("--upgrade torch", *NATIVE_FORBID),
        require=("cu128",),
    ),
    Case(
        id="sdwebui-nix-9-rtx5090-journal",
        url="https://github.com/Janrupf/stable-diffusion-webui-nix/issues/9",
        cause="RTX 5090 with a PyTorch build for sm_50..sm_90 only (journal output of a service)",
        expect="torch.gpu_too_new",
        machine=_nvidia_host(
            "580.65.06",
            "13.0",
            [("NVIDIA GeForce RTX 5090", 32607)],
            python=torch_json(
                "2.5.1+cu124",
                "12.4",
                arch_list=CU124,
                devices=[{"index": 0, "name": "NVIDIA GeForce RTX 5090", "capability": "12.0"}],
            ),
        ),
        forbid=("--upgrade torch",),
        assumed="driver 580.65.06 and torch 2.5.1+cu124 (the report shows only the arch list)",
    ),
    Case(
        id="index-tts-815-p100-cu128",
        url="https://github.com/index-tts/index-tts/issues/815",
        cause="Tesla P100 (sm_60) with PyTorch 2.8.0+cu128, which dropped Pascal: needs a cu126 "
        "build",
        expect="torch.gpu_too_old",
        machine=_nvidia_host(
            "550.54.14",
            "12.4",
            [("Tesla P100-PCIE-16GB", 16384)],
            python=torch_json(
                "2.8.0+cu128",
                "12.8",
                python="3.12.3",
                arch_list=CU128_28,
                devices=[{"index": 0, "name": "Tesla P100-PCIE-16GB", "capability": "6.0"}],
            ),
        ),
        require=("cu126",),
        forbid=("cu128", "cu130", "--upgrade torch"),
        assumed="driver 550.54.14 (not stated)",
    ),
    Case(
        id="fooocus-1313-driver-470",
        url="https://github.com/lllyasviel/Fooocus/issues/1313",
        cause="Driver 470.86 (CUDA 11.4) is too old for the CUDA 12 PyTorch build Fooocus installs",
        expect="torch.driver_too_old",
        machine=_nvidia_host(
            "470.86",
            "11.4",
            [("NVIDIA GeForce RTX 3050 Laptop GPU", 4096)],
            python=torch_json(
                "2.1.0+cu121",
                "12.1",
                python="3.10.12",
                available=False,
                init_error="RuntimeError: The NVIDIA driver on your system is too old (found "
                "version 11040).",
            ),
        ),
        forbid=("--gpus", "--upgrade torch"),
        assumed="torch 2.1.0+cu121 and Python 3.10 (Fooocus' requirement at the time)",
    ),
    Case(
        id="yuan-65-container-driver-too-old",
        url="https://github.com/IEIT-Yuan/Yuan-2.0/issues/65",
        cause="A CUDA 12.1 container on a host whose driver supports CUDA 11.0: upgrade the host "
        "driver (to 535)",
        expect="torch.driver_too_old",
        machine=_nvidia_host(
            "450.80.02",
            "11.0",
            [("NVIDIA A100-SXM4-80GB", 81920)],
            container=True,
            python=torch_json(
                "2.1.0a0+32f93b1",
                "12.1",
                python="3.10.12",
                available=False,
                init_error="UserWarning: CUDA initialization: The NVIDIA driver on your system is "
                "too old (found version 11000).",
            ),
        ),
        forbid=CONTAINER_FORBID,
        assumed="driver 450.80.02 and an A100 (the report gives only 'found version 11000')",
    ),
    Case(
        id="xagent-273-docker-no-toolkit",
        url="https://github.com/OpenBMB/XAgent/issues/273",
        cause="docker run --gpus on a host without NVIDIA Container Toolkit; installing it fixed "
        "it",
        expect="docker.gpus_refused",
        expect_machine="docker.no_toolkit",
        machine=Machine(
            files={**pci(), "/proc/modules": "nvidia 56823808 0 - Live 0x0\n", "/dev/nvidia0": ""},
            tools={
                "nvidia-smi": (
                    "ok",
                    smi_xml("535.104.05", "12.2", [("NVIDIA GeForce RTX 4090", 24564)] * 4),
                ),
                "docker": (
                    "ok",
                    '{"ServerVersion": "24.0.7", "Runtimes": {"runc": {}}, "DefaultRuntime": '
                    '"runc"}',
                ),
            },
        ),
        require=("nvidia-container-toolkit",),
        forbid=("modprobe", "ubuntu-drivers"),
        assumed="driver 535.104.05",
    ),
    Case(
        id="anomalib-584-container-without-gpus",
        url="https://github.com/open-edge-platform/anomalib/issues/584",
        cause="The container was started without --gpus (docker run -it test): no GPU inside",
        expect="container.gpu_not_passed",
        machine=Machine(
            container=True,
            files={**pci(), "/proc/modules": "nvidia 56823808 0 - Live 0x0\n"},
            tools={"nvcc": ("ok", "Cuda compilation tools, release 11.4, V11.4.152\n")},
            python=torch_json(
                "1.12.1+cu113",
                "11.3",
                available=False,
                init_error="RuntimeError: Found no NVIDIA driver on your system.",
            ),
        ),
        require=("--gpus all",),
        forbid=CONTAINER_FORBID,
        assumed="torch 1.12.1+cu113 (the report shows only is_available() False)",
    ),
    Case(
        id="nvidia-docker-1671-nvml-lost",
        url="https://github.com/NVIDIA/nvidia-docker/issues/1671",
        cause="systemctl daemon-reload on the host removed the running container's GPU access "
        "(NVIDIA notice #1730/#48)",
        expect="container.nvml_lost",
        machine=Machine(
            container=True,
            files={
                **pci(),
                "/proc/modules": "nvidia 56823808 0 - Live 0x0\n",
                "/dev/nvidia0": "",
                "/dev/nvidiactl": "",
            },
            tools={"nvidia-smi": ("fail", "Failed to initialize NVML: Unknown Error")},
        ),
        forbid=CONTAINER_FORBID,
    ),
    Case(
        id="wsl-9166-linux-driver-in-wsl",
        url="https://github.com/microsoft/WSL/issues/9166",
        cause="nvidia-utils-510 (a Linux driver package) installed inside WSL 2 shadows the "
        "Windows driver",
        expect="nvidia.os_blocked",
        machine=Machine(
            kernel="5.15.90.1-microsoft-standard-WSL2",
            env={"WSL_DISTRO_NAME": "Ubuntu-22.04"},
            files={
                "/dev/dxg": "",
                "/usr/lib/wsl/lib/libcuda.so.1": "",
                "/usr/lib/wsl/lib/nvidia-smi": "",
                "/usr/bin/nvidia-smi": "",
                "/var/lib/dpkg/status": "Package: nvidia-utils-510\nStatus: install ok "
                "installed\nVersion: 510.108.03-0ubuntu1\n\n",
            },
            tools={
                "nvidia-smi": (
                    "fail",
                    "Failed to initialize NVML: GPU access blocked by the operating system",
                )
            },
        ),
        expect_machine="nvidia.os_blocked",
        require=("wsl --update",),
        forbid=("ubuntu-drivers", "modprobe", "cuda-drivers"),
    ),
    Case(
        id="wsl-11865-l40s-tcc",
        url="https://github.com/microsoft/WSL/issues/11865",
        cause="The L40S runs in TCC mode on Windows Server; WSL 2 needs WDDM (also "
        "microsoft/WSL#12835)",
        expect="wsl.gpu_tcc",
        expect_machine="nvidia.os_blocked",
        machine=Machine(
            kernel="5.15.153.1-microsoft-standard-WSL2",
            files={"/dev/dxg": "", "/usr/lib/wsl/lib/libcuda.so.1": ""},
            tools={
                "nvidia-smi": (
                    "fail",
                    "Failed to initialize NVML: GPU access blocked by the operating system",
                )
            },
        ),
        require=("nvidia-smi -g 0 -dm 0",),
        forbid=("ubuntu-drivers", "modprobe", "apt-get"),
    ),
    Case(
        id="wsl-5554-wsl1",
        url="https://github.com/microsoft/WSL/issues/5554",
        cause="The distribution runs under WSL 1 (kernel 4.4.0-19041-Microsoft), which has no GPU "
        "access",
        expect="wsl.version1",
        machine=Machine(
            kernel="4.4.0-19041-Microsoft",
            env={"WSL_DISTRO_NAME": "Ubuntu-20.04"},
            tools={
                "nvidia-smi": (
                    "fail",
                    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA "
                    "driver. Make sure that the latest NVIDIA driver is installed and running.",
                )
            },
        ),
        require=("--set-version",),
        forbid=("modprobe", "dkms", "ubuntu-drivers", "whl/cpu"),
    ),
    Case(
        id="illinois-70-version-mismatch",
        url="https://github.com/illinois-scicomp/machine-shop-maintenance/issues/70",
        cause="An upgrade left kernel module 520.56.06 with user-space 525.85.12; apt "
        "--fix-broken repaired it",
        expect="nvidia.version_mismatch",
        machine=Machine(
            os_release=DEBIAN,
            files={
                **pci(),
                "/proc/modules": "nvidia 56823808 0 - Live 0x0\n",
                "/proc/driver/nvidia/version": "NVRM version: NVIDIA UNIX x86_64 Kernel Module  "
                "520.56.06  Thu Oct  6 21:38:55 UTC 2022\n",
                "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.525.85.12": "",
                "/var/lib/dpkg/status": "Package: nvidia-smi\nStatus: install ok "
                "installed\nVersion: 525.85.12-1\n\n",
            },
            tools={
                "nvidia-smi": (
                    "fail",
                    "Failed to initialize NVML: Driver/library version mismatch\nNVML library "
                    "version: 525.85",
                )
            },
        ),
        require=("apt-get install -f",),
        forbid=NATIVE_FORBID,
    ),
    Case(
        id="canonical-61-secure-boot",
        url="https://github.com/canonical/nvidia-graphics-drivers/issues/61",
        cause="Secure Boot rejects the unsigned DKMS module (Key was rejected by service)",
        expect="nvidia.driver_secure_boot",
        machine=Machine(
            files={
                **pci(),
                SECURE_BOOT_VAR: "\x06\x00\x00\x00\x01",
            },
            tools={
                "nvidia-smi": (
                    "fail",
                    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA "
                    "driver. Make sure that the latest NVIDIA driver is installed and running.",
                )
            },
        ),
        require=("mokutil",),
        forbid=NATIVE_FORBID,
    ),
    Case(
        id="nvsentinel-155-fallen-off-bus",
        url="https://github.com/NVIDIA/NVSentinel/issues/155",
        cause="The GPU fell off the bus (hardware, power or thermal), like Xid 79 "
        "(open-gpu-kernel-modules#507)",
        expect="nvidia.gpu_lost",
        machine=Machine(
            files={**pci(), "/proc/modules": "nvidia 56823808 0 - Live 0x0\n"},
            tools={
                "nvidia-smi": (
                    "fail",
                    "Unable to determine the device handle for GPU0000:B3:00.0: Unknown Error",
                ),
                "dmesg": ("ok", (REPORTS / "nvsentinel-155-fallen-off-bus.txt").read_text()),
            },
        ),
        forbid=("apt-get", "ubuntu-drivers", "pip install", "modprobe"),
    ),
    Case(
        id="nixos-hardware-1880-gtx1050-595",
        url="https://github.com/NixOS/nixos-hardware/issues/1880",
        cause="Driver 595 dropped Pascal: the GTX 1050 needs the 580 legacy branch",
        expect="nvidia.driver_ignores_gpu",
        machine=Machine(
            os_release='NAME=NixOS\nID=nixos\nVERSION_ID="26.05"\nPRETTY_NAME="NixOS 26.05"\n',
            files={**pci(device="0x1c81"), "/proc/modules": "nvidia 56823808 0 - Live 0x0\n"},
            tools={
                "nvidia-smi": ("fail", "No devices were found"),
                "dmesg": ("ok", (REPORTS / "nixos-hardware-1880-gtx1050-595.txt").read_text()),
            },
        ),
        require=("580",),
        forbid=("ubuntu-drivers install",),
    ),
    Case(
        id="talos-8764-gt710-535",
        url="https://github.com/siderolabs/talos/issues/8764",
        cause="Driver 535 dropped Kepler: the GT 710 needs the 470 legacy branch",
        expect="nvidia.driver_ignores_gpu",
        machine=Machine(
            files={**pci(device="0x128b"), "/proc/modules": "nvidia 56823808 0 - Live 0x0\n"},
            tools={
                "nvidia-smi": ("fail", "No devices were found"),
                "dmesg": ("ok", (REPORTS / "talos-8764-gt710-535.txt").read_text()),
            },
        ),
        require=("470",),
    ),
    Case(
        id="ollama-17290-p40-driver-535",
        url="https://github.com/ollama/ollama/issues/17290",
        cause="Driver 535 is below what Ollama ≥ 0.30 requires; upgrading the host driver to 580 "
        "fixed it",
        expect="ollama.driver_too_old",
        machine=_nvidia_host(
            "535.309.01",
            "12.2",
            [("Tesla P40", 24576)] * 2,
            files={
                "/etc/systemd/system/ollama.service": "[Service]\nExecStart=/usr/local/bin/ollama "
                "serve\n"
            },
            ollama={
                "version": "0.32.1",
                "ps": [{"name": "llama3.1:8b", "size": 5_000_000_000, "size_vram": 0}],
            },
            python=torch_json(
                "2.5.1+cu121",
                "12.1",
                devices=[{"index": 0, "name": "Tesla P40", "capability": "6.1"}],
            ),
        ),
        require=("570",),
        forbid=("--upgrade torch", "downgrade"),
        assumed="a PyTorch that sees the P40 (compute capability 6.1); Ollama 0.32.1 from the "
        "thread",
    ),
    Case(
        id="ollama-8679-hsa-override-manual-serve",
        url="https://github.com/ollama/ollama/issues/8679",
        cause="HSA_OVERRIDE_GFX_VERSION was set in the systemd unit but `ollama serve` was run by "
        "hand",
        expect="ollama.env_not_applied",
        machine=Machine(
            os_release='NAME="Arch Linux"\nID=arch\nPRETTY_NAME="Arch Linux"\n',
            files={
                "/dev/kfd": "",
                "/etc/systemd/system/ollama.service": "[Service]\nExecStart=/usr/bin/ollama "
                'serve\nEnvironment="HSA_OVERRIDE_GFX_VERSION=10.3.0"\n',
                "/proc/4242/comm": "ollama\n",
                "/proc/4242/cmdline": "ollama\0serve\0",
                "/proc/4242/stat": "4242 (ollama) S 777 4242 0 0",
                "/proc/4242/environ": "HOME=/home/u\0PATH=/usr/bin\0",
                "/proc/777/comm": "bash\n",
            },
            tools={"rocm-smi": ("ok", RX6700XT), "ollama": ("ok", "")},
            ollama={
                "version": "0.5.7",
                "ps": [{"name": "llama3.2", "size": 3_000_000_000, "size_vram": 0}],
            },
        ),
        require=("systemctl restart ollama",),
        forbid=("modprobe",),
    ),
    Case(
        id="ollama-8772-gfx1031-unsupported",
        url="https://github.com/ollama/ollama/issues/8772",
        cause="RX 6750 (gfx1031) is not in Ollama's ROCm list; HSA_OVERRIDE_GFX_VERSION=10.3.0 is "
        "the documented override",
        expect="ollama.amd_unsupported",
        machine=Machine(
            files={
                "/dev/kfd": "",
                "/etc/systemd/system/ollama.service": "[Service]\nExecStart=/usr/local/bin/ollama "
                "serve\n",
                "/proc/4242/comm": "ollama\n",
                "/proc/4242/cmdline": "ollama\0serve\0",
                "/proc/4242/stat": "4242 (ollama) S 1 4242 0 0",
                "/proc/4242/environ": "HOME=/usr/share/ollama\0",
            },
            tools={"rocm-smi": ("ok", RX6700XT), "ollama": ("ok", "")},
            ollama={
                "version": "0.5.7",
                "ps": [{"name": "qwen2.5", "size": 4_000_000_000, "size_vram": 0}],
            },
        ),
        require=("HSA_OVERRIDE_GFX_VERSION=10.3.0",),
    ),
    Case(
        id="rocm-docker-116-kfd-render",
        url="https://github.com/ROCm/ROCm-docker/issues/116",
        cause="/dev/kfd belongs to group render; the container was started with --group-add video "
        "only (fixed by ROCm-docker#93)",
        expect="amd.no_access",
        machine=Machine(
            container=True,
            files={"/dev/kfd": ""},
            render_group=False,  # in `video` only, as with --group-add video
            tools={"rocm-smi": ("ok", RX6700XT)},
        ),
        require=("--group-add render",),
        forbid=("usermod", "modprobe"),
    ),
    Case(
        id="comfyui-1712-hip-invalid-device-function",
        url="https://github.com/ROCm/legacy-rocm-build/issues/2536",
        cause="RX 6700 XT (gfx1031) is not in the ROCm PyTorch build; "
        "HSA_OVERRIDE_GFX_VERSION=10.3.0 fixed it (thread of Comfy-Org/ComfyUI#1712)",
        expect="torch.rocm_gfx_override",  # the paste's lspci line: Navi 22 → gfx1031
        machine=Machine(
            files={"/dev/kfd": ""},
            tools={"rocm-smi": ("ok", RX6700XT)},
            python=torch_json(
                "2.2.0.dev20231010+rocm5.7",
                None,
                hip="5.7.31921",
                arch_list=["gfx900", "gfx906", "gfx908", "gfx90a", "gfx1030", "gfx1100"],
                devices=[
                    {
                        "index": 0,
                        "name": "AMD Radeon RX 6700 XT",
                        "capability": "10.3",
                        "gcn_arch": "gfx1031",
                    }
                ],
            ),
        ),
        require=("HSA_OVERRIDE_GFX_VERSION=10.3.0",),
    ),
    Case(
        id="vllm-ascend-2698-dcmi-8005",
        url="https://github.com/vllm-project/vllm-ascend/issues/2698",
        cause="DCMI -8005: the NPU is occupied by another container (maintainer, citing hiascend "
        "case 9289)",
        expect="ascend.dcmi_error",
        machine=Machine(
            container=True,
            files={"/dev/davinci7": ""},
            tools={
                "npu-smi": (
                    "fail",
                    "DrvMngGetConsoleLogLevel failed. (g_conLogLevel=3)\ndcmi module initialize "
                    "failed. ret is -8005",
                )
            },
        ),
        require=("docker ps",),
        forbid=CONTAINER_FORBID,
    ),
    Case(
        id="triton-ascend-328-torch-npu-cann",
        url="https://github.com/triton-lang/triton-ascend/issues/328",
        cause="torch-npu 2.7.1 does not match CANN 9.0.0 (undefined symbol); 2.7.1.post4 does",
        expect="ascend.cann_mismatch",
        machine=Machine(
            files={
                "/dev/davinci0": "",
                CANN_INFO: "package_name=Ascend-cann-toolkit\nversion=9.0.0\n",
            },
            tools={"npu-smi": ("ok", NPU_910B)},
            python=torch_json(
                "2.7.1",
                None,
                python="3.11.9",
                available=False,
                packages={"torch": "2.7.1", "torch-npu": "2.7.1"},
            ),
        ),
        require=("2.7.1.post4",),
    ),
    Case(
        id="nccl-342-shm-docker",
        url="https://github.com/NVIDIA/nccl/issues/342",
        cause="Docker's default 64 MiB /dev/shm is too small for NCCL's shared-memory transport",
        expect="nccl.failed_shm",
        machine=Machine(
            container=True,
            nccl=True,
            files={**pci(), "/proc/modules": "nvidia 56823808 0 - Live 0x0\n", "/dev/nvidia0": ""},
            tools={
                "nvidia-smi": ("ok", smi_xml("440.64", "10.2", [("GeForce RTX 2080", 7982)] * 4))
            },
            python={
                **torch_json(
                    "1.5.0",
                    "10.1",
                    devices=[
                        {"index": i, "name": "GeForce RTX 2080", "capability": "7.5"}
                        for i in range(4)
                    ],
                    arch_list=["sm_37", "sm_50", "sm_60", "sm_70", "sm_75"],
                ),
                "backend": "nccl",
                "world_size": 4,
                "ok": False,
                "error": "include/shm.h:48 NCCL WARN Error while creating shared memory segment "
                "nccl-shm-recv-250a7cc850ba9298-0-1-3 (size 9637888)",
            },
        ),
        require=("--shm-size",),
        forbid=("modprobe", "reboot"),
        assumed="torch 1.5.0 on driver 440.64 (the report names only the CUDA 10.1 image and NCCL "
        "2.7.3)",
    ),
    Case(
        id="pytorch-80637-cudnn-ld-library-path",
        url="https://github.com/pytorch/pytorch/issues/80637",
        cause="LD_LIBRARY_PATH lists a system cuDNN 8.0.3 ahead of the wheel's cuDNN 8.3.2",
        expect="torch.lib_shadowed",
        machine=_nvidia_host(
            "510.47.03",
            "11.6",
            [("Tesla V100-SXM2-32GB", 32768)],
            python=torch_json(
                "1.12.0+cu113",
                "11.3",
                python="3.8.13",
                devices=[{"index": 0, "name": "Tesla V100-SXM2-32GB", "capability": "7.0"}],
                cudnn_error="RuntimeError: cuDNN version incompatibility: PyTorch was compiled "
                "against (8, 3, 2) but linked against (8, 0, 3)",
                loaded_libs={
                    "libcudnn.so.8": (
                        "/public/apps/cudnn/v8.0.3.33-cuda.11.0/cuda/lib64/libcudnn.so.8"
                    )
                },
                ld_library_path="/public/apps/cudnn/v8.0.3.33-cuda.11.0/cuda/lib64:/public/apps/cuda/11.0/lib64:/usr/local/cuda/lib64",
            ),
        ),
        require=("LD_LIBRARY_PATH",),
        forbid=("--upgrade torch", "reboot"),
        assumed="a V100 on driver 510.47.03 (the report shows only the library versions)",
    ),
    Case(
        id="kohya-1096-cudnn-incompatibility",
        url="https://github.com/bmaltais/kohya_ss/issues/1096",
        cause="A system cuDNN 8.2.4 reached through LD_LIBRARY_PATH (kept across sudo) shadows "
        "torch 2.0.1+cu118's cuDNN 8.7",
        expect="torch.lib_shadowed",
        machine=_nvidia_host(
            "525.105.17",
            "12.0",
            [("NVIDIA GeForce RTX 3090", 24576)],
            python=torch_json(
                "2.0.1+cu118",
                "11.8",
                python="3.10.6",
                devices=[{"index": 0, "name": "NVIDIA GeForce RTX 3090", "capability": "8.6"}],
                cudnn_error="RuntimeError: cuDNN version incompatibility: PyTorch was compiled  "
                "against (8, 7, 0) but found runtime version (8, 2, 4).",
                loaded_libs={"libcudnn.so.8": "/usr/local/cuda/lib64/libcudnn.so.8"},
                ld_library_path="/usr/local/cuda/lib64",
            ),
        ),
        require=("LD_LIBRARY_PATH",),
        assumed="an RTX 3090 on driver 525.105.17 and cuDNN under /usr/local/cuda/lib64",
    ),
)
