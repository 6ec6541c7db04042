"""The platform around the GPU: WSL, containers and Docker, CUDA toolkits, AMD, Intel, Ascend,
Apple silicon.

A fact that is unknown (None, e.g. from a pasted report that did not show it) never triggers a
finding: only a fact seen to be wrong does.
"""

from __future__ import annotations

from typing import Any

from gpuwise.catalog.versions import at_least
from gpuwise.doctor import fixes
from gpuwise.doctor.inputs import Inputs
from gpuwise.doctor.model import Finding
from gpuwise.doctor.policy import GIB, SHM_MIN_BYTES
from gpuwise.i18n import t
from gpuwise.parse.gpu_facts import gpus_from_facts
from gpuwise.parse.view import (
    any_facts,
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
            "wsl -l -v",
            f"wsl --set-version {w.get('distro') or '<distro>'} 2",
        )
        return [Finding("wsl.version1", "error", {"distro": w.get("distro") or "?"}, convert)]
    out = []
    smi_gpus = gpus_from_facts(found(inp.facts, "nvidia_smi").get("gpus"))
    tcc = [g for g in smi_gpus if g.driver_model == "TCC"]
    if tcc:
        names = ", ".join(g.name or "?" for g in tcc)
        cmds_tcc = (
            fixes.comment("on_windows"),
            fixes.comment("tcc_to_wddm"),
            "nvidia-smi -g 0 -dm 0",
        )
        out.append(Finding("wsl.gpu_tcc", "error", {"names": names}, cmds_tcc))
    stray = w.get("linux_driver_packages") or []
    if stray or w.get("linux_nvidia_smi") or w.get("linux_libcuda"):
        what = ", ".join(stray) or "/usr/bin/nvidia-smi, libcuda.so"
        cmds: tuple[str, ...] = (fixes.remove_packages(h, stray),) if stray else ()
        out.append(Finding("wsl.linux_driver", "error", {"what": what}, cmds))
    if w.get("dxg") is False:
        out.append(
            Finding("wsl.no_dxg", "error", {"kernel": w.get("kernel", "")}, fixes.driver_install(h))
        )
    elif w.get("dxg") and w.get("wsl_libcuda") is False:
        out.append(Finding("wsl.no_windows_driver", "warn", {}, fixes.driver_install(h)))
    return out


def container(inp: Inputs) -> list[Finding]:
    """Inside a container: enough shared memory for NCCL and DataLoader workers?"""
    c = found(inp.facts, "container")
    if not c.get("in_container"):
        return []
    shm = found(inp.facts, "kernel").get("shm_bytes")
    uses_gpu_training = len(nvidia_gpus(inp.facts)) > 1 or bool(torch_info(inp.facts))
    if shm and shm < SHM_MIN_BYTES and uses_gpu_training:
        cmds = (fixes.comment("host_side"), "docker run --shm-size=16g …   # or: --ipc=host")
        return [Finding("container.shm_small", "warn", {"shm_mib": shm // (1024 * 1024)}, cmds)]
    return []


def docker_gpu(inp: Inputs) -> list[Finding]:
    """A Docker host with an NVIDIA GPU but no way to hand it to containers."""
    c = found(inp.facts, "container")
    d = c.get("docker") or {}
    tk = c.get("toolkit") or {}
    if d.get("gpu_request_error"):
        return [_gpu_request_error(inp, str(d["gpu_request_error"]))]
    if not d.get("installed") or c.get("in_container"):
        return []
    if not d.get("daemon"):
        params = {"error": d.get("error") or "?"}
        return [Finding("docker.daemon_down", "info", params, ("sudo systemctl start docker",))]
    if not nvidia_present(inp.facts) and not inp.pasted:
        return []
    runtimes = d.get("runtimes") or []
    if "nvidia" in runtimes or tk.get("cdi_specs"):
        return [Finding("docker.gpu_ok", "ok", {"runtimes": ", ".join(runtimes)})]
    params = {"runtimes": ", ".join(runtimes) or "runc"}
    cmds = fixes.container_toolkit(inp.host)
    if tk.get("nvidia_ctk"):  # installed, only not registered with Docker
        return [Finding("docker.runtime_not_configured", "warn", params, cmds[2:])]
    return [Finding("docker.no_toolkit", "warn", params, cmds)]


def _gpu_request_error(inp: Inputs, error: str) -> Finding:
    """`docker run --gpus …` refused: no NVIDIA runtime registered with this Docker daemon."""
    cmds = fixes.container_toolkit(inp.host)
    return Finding("docker.gpus_refused", "error", {"error": error[:300]}, cmds)


def toolkits(inp: Inputs) -> list[Finding]:
    """Several nvcc versions on PATH; an nvcc newer than the driver supports."""
    every = any_facts(inp.facts, "toolkit").get("nvcc") or []
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


def _group_fix(group: str, place: str) -> tuple[str, ...]:
    """Join the device's group (host), or start the container with it (docker --group-add)."""
    grp = group or "render"
    if place == "container":
        return (
            fixes.comment("host_side"),
            f"docker run --device=/dev/kfd --device=/dev/dri --group-add video --group-add {grp} …",
        )
    return (f"sudo usermod -aG {grp},video $USER", fixes.comment("relogin"))


def amd(inp: Inputs) -> list[Finding]:
    """AMD GPUs: ROCm device access (/dev/kfd and render nodes, by group) and what is seen."""
    a = found(inp.facts, "amd")
    k = found(inp.facts, "kernel")
    on_bus = pci_vendor_count(inp.facts, "amd")
    cards = a.get("cards") or []
    devices = k.get("devices") or {}
    if not cards and not devices.get("kfd"):
        if on_bus and "amdgpu" not in (k.get("modules") or []) and not inp.host.wsl:
            return [Finding("amd.no_driver", "info", {"count": on_bus}, ("lsmod | grep amdgpu",))]
        return []
    blocked = _blocked_nodes(devices)
    if blocked:
        group = devices.get("kfd_group") or next(
            (b["group"] for b in blocked if b.get("group")), ""
        )
        params = {
            "groups": ", ".join(k.get("groups") or []) or "—",
            "nodes": ", ".join(
                f"{b['node']} ({b.get('group') or '?'} {b.get('mode') or ''})".strip()
                for b in blocked
            ),
            "group": group or "render",
        }
        return [
            Finding(
                "amd.no_access",
                "error",
                params,
                ("ls -l /dev/kfd /dev/dri/render*", *_group_fix(group, inp.host.place)),
            )
        ]
    if any(not c.get("codename") for c in cards):  # lspci alone says nothing about ROCm
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


def _blocked_nodes(devices: dict[str, Any]) -> list[dict[str, Any]]:
    """/dev/kfd and render nodes this user may not open read-write."""
    out = []
    if devices.get("kfd") and devices.get("kfd_rw") is False:
        out.append({"node": "/dev/kfd", "group": devices.get("kfd_group", "")})
    for r in devices.get("render_access") or []:
        if r.get("rw") is False:
            out.append(
                {
                    "node": f"/dev/dri/{r['node']}",
                    "group": r.get("group", ""),
                    "mode": r.get("mode", ""),
                }
            )
    return out


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
    """Ascend NPUs: DCMI errors, health as npu-smi reports it, CANN and torch_npu versions."""
    a = any_facts(inp.facts, "ascend")
    out = []
    code = a.get("dcmi_code")
    if isinstance(code, int):
        out.append(_dcmi(inp, code))
    npus = found(inp.facts, "ascend").get("npus") or []
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
    if (npus or a.get("davinci")) and a.get("toolkit") is False:
        out.append(Finding("ascend.no_toolkit", "warn", {}, ("ls /usr/local/Ascend",)))
    out += _cann_pairing(inp, a)
    return out


def _dcmi(inp: Inputs, code: int) -> Finding:
    cause = inp.tables.dcmi_cause(code) or "unknown"
    params = {"code": code, "cause_text": t(f"doctor.dcmi.{cause}")}
    cmds: tuple[str, ...] = ("npu-smi info -l",)
    if cause in ("device_in_other_container", "device_in_use"):
        cmds = (
            fixes.comment("host_side"),
            "docker ps --format '{{.ID}} {{.Names}}'",
            "npu-smi info",
            fixes.comment("one_npu_one_container"),
        )
    return Finding("ascend.dcmi_error", "error", params, cmds)


def _cann_pairing(inp: Inputs, a: dict[str, Any]) -> list[Finding]:
    """torch_npu must match the CANN version (Ascend's own table)."""
    cann = str(a.get("cann_version") or "")
    pkgs = any_facts(inp.facts, "torch").get("packages") or {}
    npu = str(pkgs.get("torch-npu") or pkgs.get("torch_npu") or "")
    if not cann or not npu:
        return []
    pairs = inp.tables.cann_for_torch_npu(npu)
    if not pairs or any(
        p.lower() == cann.lower() or p.lower() == cann.lower() + ".0" for p in pairs
    ):
        return []
    torch_v = str(pkgs.get("torch") or "")
    fits = inp.tables.torch_npu_for_cann(cann, torch_v)
    params = {
        "torch_npu": npu,
        "cann": cann,
        "pairs": ", ".join(pairs),
        "fits": ", ".join(fits) or "—",
    }
    py = inp.host.python
    cmds = (
        (f"{py} -m pip install 'torch-npu=={fits[0]}'",) if fits else (fixes.comment("cann_table"),)
    )
    return [Finding("ascend.cann_mismatch", "error", params, cmds)]


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
    "wsl.gpu_tcc",
    "container.shm_small",
    "docker.daemon_down",
    "docker.gpu_ok",
    "docker.no_toolkit",
    "docker.runtime_not_configured",
    "docker.gpus_refused",
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
    "ascend.dcmi_error",
    "ascend.cann_mismatch",
    "apple.silicon",
)
