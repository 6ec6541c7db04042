"""WSL, containers and Docker, CUDA toolkits, AMD, Intel, Ascend, environment variables."""

from __future__ import annotations

from gpuwise.parse.result import Failed, Found
from tests.doctor import build as b

GPU = b.nvml("590.44.01", "13.1", [b.gpu()])


def test_wsl1_and_wsl2_without_dxg() -> None:
    one = b.run(b.machine(wsl=Found({"version": 1, "distro": "Ubuntu"})))
    assert "wsl --set-version Ubuntu 2" in b.by_id(one, "wsl.version1").commands
    two = b.run(
        b.machine(
            wsl=Found({"version": 2, "dxg": False, "kernel": "5.10.16.3-microsoft-standard-WSL2"})
        )
    )
    assert b.by_id(two, "wsl.no_dxg").level == "error"


def test_container_without_gpu_devices() -> None:
    c = Found(
        {
            "in_container": True,
            "runtime": "docker",
            "nvidia_visible_devices": "all",
            "docker": {"installed": False},
            "toolkit": {},
        }
    )
    f = b.by_id(b.run(b.machine(container=c)), "container.gpu_not_passed")
    assert any("--gpus all" in cmd for cmd in f.commands)
    assert not any("modprobe" in cmd or "ubuntu-drivers" in cmd for cmd in f.commands)


def test_small_shm_in_a_training_container() -> None:
    c = Found(
        {"in_container": True, "runtime": "docker", "docker": {"installed": False}, "toolkit": {}}
    )
    facts = b.machine(
        container=c, kernel=b.kernel(shm_bytes=64 * 1024 * 1024), nvml=GPU, torch=b.torch()
    )
    assert b.by_id(b.run(facts), "container.shm_small").params["shm_mib"] == 64


def test_docker_without_nvidia_toolkit_apt_and_configured() -> None:
    docker = {"installed": True, "daemon": True, "runtimes": ["io.containerd.runc.v2", "runc"]}
    none = Found(
        {"in_container": False, "docker": docker, "toolkit": {"nvidia_ctk": None, "cdi_specs": []}}
    )
    f = b.by_id(b.run(b.machine(container=none, nvml=GPU)), "docker.no_toolkit")
    assert "sudo apt-get install -y nvidia-container-toolkit" in f.commands
    unregistered = Found(
        {
            "in_container": False,
            "docker": docker,
            "toolkit": {"nvidia_ctk": "/usr/bin/nvidia-ctk", "cdi_specs": []},
        }
    )
    g = b.by_id(b.run(b.machine(container=unregistered, nvml=GPU)), "docker.runtime_not_configured")
    assert g.commands[0] == "sudo nvidia-ctk runtime configure --runtime=docker"
    ok = Found(
        {"in_container": False, "docker": {**docker, "runtimes": ["nvidia", "runc"]}, "toolkit": {}}
    )
    assert "docker.gpu_ok" in b.ids(b.run(b.machine(container=ok, nvml=GPU)))


def test_several_nvcc_and_nvcc_newer_than_driver() -> None:
    toolkit = Found(
        {
            "nvcc": [
                {"path": "/usr/local/cuda-13.0/bin/nvcc", "version": "13.0", "error": ""},
                {"path": "/usr/bin/nvcc", "version": "11.5", "error": ""},
                {"path": "/opt/broken/nvcc", "version": "", "error": "timeout"},
            ]
        }
    )
    findings = b.run(b.machine(toolkit=toolkit, nvml=b.nvml("550.54.14", "12.4", [b.gpu()])))
    assert "13.0" in b.by_id(findings, "cuda.multiple_nvcc").params["listing"]
    assert b.by_id(findings, "cuda.nvcc_newer_than_driver").params["max_cuda"] == "12.4"
    assert b.by_id(findings, "cuda.nvcc_broken").params["error"] == "timeout"


def test_amd_without_access_and_ok() -> None:
    devices = {
        "nvidia": [],
        "dxg": False,
        "kfd": True,
        "kfd_rw": False,
        "dri_render": ["renderD128"],
        "davinci": [],
    }
    f = b.by_id(
        b.run(b.machine(kernel=b.kernel(devices=devices, groups=["users"]))), "amd.no_access"
    )
    assert "sudo usermod -aG render,video $USER" in f.commands
    cards = [
        {"card": "card0", "name": "Navi 22 [Radeon RX 6700/6700 XT / 6800M]", "gfx": "gfx1031"}
    ]
    ok = b.run(b.machine(amd=Found({"cards": cards, "driver_version": "6.3.6"})))
    assert "gfx1031" in b.by_id(ok, "amd.ok").params["names"]
    assert "gpu.none" not in b.ids(ok)


def test_ascend_health_and_toolkit() -> None:
    npus = [
        {"npu": 0, "chip": 0, "name": "910B4-1", "health": "OK"},
        {"npu": 1, "chip": 0, "name": "910B4-1", "health": "Alarm"},
    ]
    findings = b.run(
        b.machine(
            ascend=Found({"npus": npus, "davinci": ["davinci0", "davinci1"], "toolkit": False})
        )
    )
    assert b.by_id(findings, "ascend.unhealthy").params["health"] == "Alarm"
    assert "ascend.no_toolkit" in b.ids(findings)
    assert (
        b.by_id(
            b.run(b.machine(ascend=Failed("error", "dcmi module initialize failed"))),
            "probe.tool_failed",
        ).level
        == "warn"
    )


def test_intel_and_apple() -> None:
    intel = b.run(
        b.machine(
            intel=Found(
                {
                    "gpus": ["[level_zero:gpu][level_zero:0] Intel(R) Arc(TM) A770"],
                    "sycl_ls": "/usr/bin/sycl-ls",
                }
            )
        )
    )
    assert "intel.ok" in b.ids(intel)
    mac = b.run(
        b.machine(
            system=b.system(
                os="Darwin", apple_silicon=True, memory_bytes=64 * 1024**3, macos="15.1"
            )
        )
    )
    assert b.by_id(mac, "apple.silicon").params["memory_gib"] == 64
    assert "gpu.none" not in b.ids(mac)


def test_cuda_visible_devices_hiding_gpus() -> None:
    findings = b.run(b.machine(system=b.system(cuda_visible_devices="-1"), nvml=GPU))
    assert b.by_id(findings, "env.gpus_hidden").level == "warn"
    plain = b.run(b.machine(system=b.system(cuda_visible_devices="0,1")))
    assert "env.cuda_visible_devices" in b.ids(plain)


def test_probe_timeouts_are_reported() -> None:
    from gpuwise.parse.result import TimedOut

    f = b.by_id(b.run(b.machine(kernel=TimedOut(9.5))), "probe.timeout")
    assert f.params["probe"] == "/proc, /sys"  # what the user knows it as, not "kernel"
