"""The platform around the GPU: WSL, containers and Docker, CUDA toolkits, AMD, Intel, Ascend,
Apple silicon."""

from __future__ import annotations

from gpuwise.doctor import fixes
from gpuwise.doctor.inputs import Inputs
from gpuwise.doctor.model import Finding
from gpuwise.doctor.policy import GIB, SHM_MIN_BYTES
from gpuwise.doctor.versions import at_least
from gpuwise.doctor.view import (
    driver_max_cuda,
    found,
    nvidia_gpus,
    nvidia_present,
    pci_vendor_count,
    torch_info,
)


def wsl(inp: Inputs) -> list[Finding]:
    """WSL1 (no GPU at all), WSL2 without /dev/dxg, a Linux driver installed inside WSL."""
    w = found(inp.facts, "wsl")
    if not w:
        return []
    h = inp.host
    if w.get("version") == 1:
        convert = (
            fixes.comment("on_windows"),
            f"wsl --set-version {w.get('distro') or '<distro>'} 2",
        )
        return [Finding("wsl.version1", "error", {"distro": w.get("distro", "")}, convert)]
    out = []
    stray = w.get("linux_driver_packages") or []
    if stray or w.get("linux_nvidia_smi") or w.get("linux_libcuda"):
        what = ", ".join(stray) or "/usr/bin/nvidia-smi, libcuda.so"
        cmds: tuple[str, ...] = (fixes.remove_packages(h, stray),) if stray else ()
        out.append(Finding("wsl.linux_driver", "error", {"what": what}, cmds))
    if not w.get("dxg"):
        out.append(
            Finding("wsl.no_dxg", "error", {"kernel": w.get("kernel", "")}, fixes.driver_install(h))
        )
    elif not w.get("wsl_libcuda"):
        out.append(Finding("wsl.no_windows_driver", "warn", {}, fixes.driver_install(h)))
    return out


def container(inp: Inputs) -> list[Finding]:
    """Inside a container: was it given a GPU, and enough shared memory?"""
    c = found(inp.facts, "container")
    if not c.get("in_container"):
        return []
    out = []
    devices = found(inp.facts, "kernel").get("devices") or {}
    visible = c.get("nvidia_visible_devices")
    if (
        visible not in (None, "", "void", "none")
        and not devices.get("nvidia")
        and not nvidia_gpus(inp.facts)
    ):
        cmds = (fixes.comment("host_side"), "docker run --rm --gpus all <image> nvidia-smi")
        out.append(Finding("container.gpu_not_injected", "error", {"visible": visible}, cmds))
    shm = found(inp.facts, "kernel").get("shm_bytes")
    uses_gpu_training = len(nvidia_gpus(inp.facts)) > 1 or bool(torch_info(inp.facts))
    if shm and shm < SHM_MIN_BYTES and uses_gpu_training:
        cmds = (fixes.comment("host_side"), "docker run --shm-size=16g …   # or: --ipc=host")
        out.append(Finding("container.shm_small", "warn", {"shm_mib": shm // (1024 * 1024)}, cmds))
    return out


def docker_gpu(inp: Inputs) -> list[Finding]:
    """A Docker host with an NVIDIA GPU but no way to hand it to containers."""
    c = found(inp.facts, "container")
    d = c.get("docker") or {}
    tk = c.get("toolkit") or {}
    if not d.get("installed") or c.get("in_container"):
        return []
    if not d.get("daemon"):
        params = {"error": d.get("error") or "?"}
        return [Finding("docker.daemon_down", "info", params, ("sudo systemctl start docker",))]
    if not nvidia_present(inp.facts):
        return []
    runtimes = d.get("runtimes") or []
    if "nvidia" in runtimes or tk.get("cdi_specs"):
        return [Finding("docker.gpu_ok", "ok", {"runtimes": ", ".join(runtimes)})]
    params = {"runtimes": ", ".join(runtimes) or "runc"}
    cmds = fixes.container_toolkit(inp.host)
    if tk.get("nvidia_ctk"):  # installed, only not registered with Docker
        return [Finding("docker.runtime_not_configured", "warn", params, cmds[2:])]
    return [Finding("docker.no_toolkit", "warn", params, cmds)]


def toolkits(inp: Inputs) -> list[Finding]:
    """Several nvcc versions on PATH; an nvcc newer than the driver supports."""
    every = found(inp.facts, "toolkit").get("nvcc") or []
    nvccs = [n for n in every if n.get("version")]
    out = [
        Finding("cuda.nvcc_broken", "warn", {"path": n["path"], "error": n.get("error") or "?"})
        for n in every
        if not n.get("version")
    ]
    versions = sorted({n["version"] for n in nvccs})
    if len(versions) > 1:
        listing = "; ".join(f"{n['version']} ({n['path']})" for n in nvccs)
        cmds = ("which -a nvcc", fixes.comment("path_order"))
        out.append(
            Finding(
                "cuda.multiple_nvcc", "warn", {"listing": listing, "first": nvccs[0]["path"]}, cmds
            )
        )
    max_cuda = driver_max_cuda(inp.facts)
    if nvccs and max_cuda and at_least(max_cuda, nvccs[0]["version"]) is False:
        params = {"nvcc": nvccs[0]["version"], "max_cuda": max_cuda}
        out.append(
            Finding("cuda.nvcc_newer_than_driver", "warn", params, fixes.driver_install(inp.host))
        )
    return out


def amd(inp: Inputs) -> list[Finding]:
    """AMD GPUs: ROCm device access and group membership."""
    a = found(inp.facts, "amd")
    k = found(inp.facts, "kernel")
    on_bus = pci_vendor_count(inp.facts, "amd")
    cards = a.get("cards") or []
    devices = k.get("devices") or {}
    if not cards and not devices.get("kfd"):
        if on_bus and "amdgpu" not in (k.get("modules") or []) and not inp.host.wsl:
            return [Finding("amd.no_driver", "info", {"count": on_bus}, ("lsmod | grep amdgpu",))]
        return []
    if devices.get("kfd") and not devices.get("kfd_rw"):
        groups = ", ".join(k.get("groups") or []) or "—"
        cmds = ("sudo usermod -aG render,video $USER", fixes.comment("relogin"))
        return [Finding("amd.no_access", "error", {"groups": groups}, cmds)]
    if cards:
        names = ", ".join(
            f"{c.get('name') or c.get('card')} ({c.get('gfx') or '?'})" for c in cards
        )
        return [
            Finding(
                "amd.ok",
                "ok",
                {"count": len(cards), "names": names, "driver": a.get("driver_version") or "?"},
            )
        ]
    return []


def intel(inp: Inputs) -> list[Finding]:
    """Intel GPUs seen by oneAPI (sycl-ls / xpu-smi)."""
    i = found(inp.facts, "intel")
    gpus = i.get("gpus") or []
    if gpus:
        return [Finding("intel.ok", "ok", {"count": len(gpus), "first": gpus[0]})]
    out = []
    if i.get("xpu_smi") and i.get("xpu_smi_ok") is False:
        params = {"probe": "xpu-smi", "detail": i.get("xpu_smi_detail") or "?"}
        out.append(Finding("probe.tool_failed", "warn", params, ("xpu-smi discovery",)))
    if i and not gpus:
        out.append(Finding("intel.no_gpu", "info", {}, ("sycl-ls", "ls -l /dev/dri")))
    return out


def ascend(inp: Inputs) -> list[Finding]:
    """Ascend NPUs: health as npu-smi reports it, and the CANN toolkit."""
    a = found(inp.facts, "ascend")
    npus = a.get("npus") or []
    out = []
    bad = [n for n in npus if n.get("health") != "OK"]
    for n in bad:
        params = {"npu": n.get("npu"), "chip": n.get("chip"), "health": n.get("health")}
        out.append(
            Finding(
                "ascend.unhealthy", "error", params, (f"npu-smi info -t health -i {n.get('npu')}",)
            )
        )
    if npus and not bad:
        out.append(
            Finding("ascend.ok", "ok", {"count": len(npus), "name": npus[0].get("name", "")})
        )
    if (npus or a.get("davinci")) and not a.get("toolkit"):
        out.append(Finding("ascend.no_toolkit", "warn", {}, ("ls /usr/local/Ascend",)))
    return out


def apple(inp: Inputs) -> list[Finding]:
    """Apple silicon: the GPU shares the machine's memory."""
    s = found(inp.facts, "system")
    if not s.get("apple_silicon"):
        return []
    mem = s.get("memory_bytes")
    params = {"memory_gib": round(mem / GIB) if mem else "?", "macos": s.get("macos", "")}
    return [Finding("apple.silicon", "info", params)]


RULES = (wsl, container, docker_gpu, toolkits, amd, intel, ascend, apple)
IDS = (
    "wsl.version1",
    "wsl.linux_driver",
    "wsl.no_dxg",
    "wsl.no_windows_driver",
    "container.gpu_not_injected",
    "container.shm_small",
    "docker.daemon_down",
    "docker.gpu_ok",
    "docker.no_toolkit",
    "docker.runtime_not_configured",
    "cuda.multiple_nvcc",
    "cuda.nvcc_broken",
    "cuda.nvcc_newer_than_driver",
    "amd.no_driver",
    "amd.no_access",
    "amd.ok",
    "intel.ok",
    "intel.no_gpu",
    "ascend.unhealthy",
    "ascend.ok",
    "ascend.no_toolkit",
    "apple.silicon",
)
