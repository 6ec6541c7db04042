"""NVIDIA driver and GPU health: can the driver be reached, how many GPUs, are they healthy.

Covers the guide's §7 rows "Failed to initialize NVML: GPU access blocked by the operating
system" (WSL2), "nvidia-smi shows 0 GPUs on a cloud instance" and "CUDA out of memory" (another
process holding the memory), plus ECC errors, throttling and narrowed PCIe links. Inside a
container the driver belongs to the host: a GPU on the bus with no usable driver inside means
the GPU was not passed in, never "install a driver here".
"""

from __future__ import annotations

import re
from typing import Any

from gpuwise.doctor import fixes
from gpuwise.doctor.inputs import Inputs
from gpuwise.doctor.model import Finding, Level
from gpuwise.doctor.policy import GIB, HELD_MEMORY_FRACTION
from gpuwise.parse.gpu_facts import GpuProcess, NvidiaGpu
from gpuwise.parse.result import Failed, Found, Missing, TimedOut
from gpuwise.parse.view import (
    driver_max_cuda,
    driver_version,
    found,
    nvidia_gpus,
    pci_vendor_count,
)

_PCIE_QUERY = (
    "nvidia-smi --query-gpu=index,pcie.link.gen.current,pcie.link.gen.max,"
    "pcie.link.width.current,pcie.link.width.max --format=csv"
)
# Failure reasons in priority order: the first one seen explains the others.
_BLOCKING = (
    "os_blocked",
    "version_mismatch",
    "gpu_lost",
    "nvml_lost",
    "no_permission",
    "driver_not_loaded",
)
_UNREACHABLE = ("driver_not_loaded", "library_not_found", "not_installed", "nvml_init_failed")
_NVML_LIB = re.compile(r"NVML library version:\s*(\d+(?:\.\d+)+)")


def _reasons(inp: Inputs) -> dict[str, str]:
    """Failure reason → detail, from nvidia-smi and NVML."""
    out: dict[str, str] = {}
    for name in ("nvidia_smi", "nvml"):
        r = inp.facts.get(name)
        if isinstance(r, Failed | Missing) and r.reason:
            out.setdefault(r.reason, r.detail)
    return out


def _signs_in_container(inp: Inputs) -> dict[str, Any]:
    """What a container can see of the host's GPU: PCI devices, the loaded module, its version."""
    k = found(inp.facts, "kernel")
    c = found(inp.facts, "container")
    return {
        "on_bus": pci_vendor_count(inp.facts, "nvidia"),
        "module": "nvidia" in (k.get("modules") or []),
        "module_version": k.get("nvidia_module_version") or "",
        "devices": bool((k.get("devices") or {}).get("nvidia")),
        "visible": c.get("nvidia_visible_devices"),
    }


def driver_state(inp: Inputs) -> list[Finding]:
    """One finding on whether the NVIDIA driver answers, and if not, why."""
    reasons = _reasons(inp)
    h = inp.host
    if found(inp.facts, "wsl").get("version") == 1:
        return []  # WSL 1 has no GPU access at all: wsl.version1 says so and how to convert
    legacy = found(inp.facts, "kmsg").get("legacy") or []
    if legacy:
        return [_legacy(inp, legacy[0])]
    if h.place == "container":
        lost = _container_state(inp, reasons)
        if lost:
            return [lost]
    for reason in _BLOCKING:
        if reason in reasons:
            return [_blocking(inp, reason, reasons[reason])]
    smi = inp.facts.get("nvidia_smi")
    gpus = nvidia_gpus(inp.facts)
    on_bus = pci_vendor_count(inp.facts, "nvidia")
    driver = driver_version(inp.facts)
    listed_none = driver and not gpus and _any_found(inp) and not inp.pasted  # a cut-off paste
    if "no_devices" in reasons or listed_none:
        return [_zero_gpus(inp, driver, on_bus)]
    if gpus:
        return [_ok(inp, gpus, driver)]
    if isinstance(smi, TimedOut) or reasons.get("timeout") is not None:
        return [Finding("nvidia.smi_hung", "error", {}, fixes.module_reload(h))]
    if on_bus and "not_installed" in reasons:
        return [Finding("nvidia.no_driver", "error", {"count": on_bus}, fixes.driver_install(h))]
    failed = [r for r in (smi, inp.facts.get("nvml")) if isinstance(r, Failed)]
    if failed:
        params = {"reason": failed[0].reason, "detail": failed[0].detail or failed[0].reason}
        return [Finding("nvidia.smi_error", "warn", params, ("nvidia-smi",))]
    return []


def _container_state(inp: Inputs, reasons: dict[str, str]) -> Finding | None:
    """Inside a container: the GPU was not passed in, or the container lost its devices."""
    signs = _signs_in_container(inp)
    if "nvml_lost" in reasons and (signs["devices"] or inp.pasted):
        cmds = (
            fixes.comment("host_side"),
            "docker restart <container>",
            fixes.comment("cgroup_fix"),
            "sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml",
        )
        return Finding("container.nvml_lost", "error", {"detail": reasons["nvml_lost"]}, cmds)
    unreachable = any(r in reasons for r in _UNREACHABLE)
    if not unreachable or nvidia_gpus(inp.facts) or signs["devices"]:
        return None
    seen = signs["on_bus"] or signs["module"] or signs["module_version"] or signs["visible"]
    if not seen and not (inp.pasted and "not_installed" in reasons):
        return None
    params = {
        "on_bus": signs["on_bus"],
        "module": signs["module_version"] or ("nvidia" if signs["module"] else "—"),
        "visible": signs["visible"] if signs["visible"] is not None else "—",
    }
    return Finding("container.gpu_not_passed", "error", params, fixes.gpu_into_container())


def _legacy(inp: Inputs, item: dict[str, Any]) -> Finding:
    """The kernel module refused a GPU whose support ended in an older driver branch."""
    params = {
        "gpu": item.get("gpu", "?"),
        "branch": item.get("branch", "?"),
        "driver": item.get("driver", "?"),
    }
    cmds = fixes.driver_install(inp.host, branch=str(item.get("branch") or ""))
    return Finding("nvidia.driver_ignores_gpu", "error", params, cmds)


def _any_found(inp: Inputs) -> bool:
    return any(isinstance(inp.facts.get(n), Found) for n in ("nvidia_smi", "nvml"))


def mismatch_versions(inp: Inputs, detail: str) -> tuple[str, str]:
    """(kernel module version, user-space library version) from every place that shows them."""
    k = found(inp.facts, "kernel")
    kmsg = found(inp.facts, "kmsg")
    api = kmsg.get("api_mismatch") or {}
    kernel = str(
        api.get("kernel") or k.get("nvidia_module_version") or kmsg.get("module_version") or ""
    )
    m = _NVML_LIB.search(detail or "")
    user = str(api.get("client") or (m.group(1) if m else ""))
    libs = [v for v in k.get("nvidia_userspace_versions") or [] if v != kernel]
    pkgs = [
        m.group(1)
        for p in k.get("driver_packages") or []
        if (m := re.match(r"(\d+\.\d+(?:\.\d+)?)", str(p.get("version", ""))))
        and m.group(1) != kernel
    ]
    return kernel or "?", user or (libs[-1] if libs else (pkgs[0] if pkgs else "?"))


def _blocking(inp: Inputs, reason: str, detail: str) -> Finding:
    h = inp.host
    kernel = found(inp.facts, "kernel")
    params: dict[str, Any] = {"detail": detail or reason}
    if reason == "os_blocked":
        return Finding("nvidia.os_blocked", "error", params, _os_blocked_fix(inp))
    if reason == "version_mismatch":
        kv, uv = mismatch_versions(inp, detail)
        broken = [
            p["name"]
            for p in kernel.get("driver_packages") or []
            if "ok installed" not in p.get("status", "")
        ]
        params.update(kernel=kv, userspace=uv, broken=", ".join(broken) or "—")
        return Finding("nvidia.version_mismatch", "error", params, fixes.repair_driver_packages(h))
    if reason == "gpu_lost":
        return Finding("nvidia.gpu_lost", "error", {**params, **_xid_params(inp)}, _gpu_lost_fix(h))
    if reason == "nvml_lost":
        return Finding(
            "nvidia.smi_error", "warn", {"reason": reason, "detail": detail}, ("nvidia-smi",)
        )
    if reason == "no_permission":
        return Finding("nvidia.no_permission", "error", params, ("ls -l /dev/nvidia*",))
    mods = kernel.get("modules") or []
    kmsg = found(inp.facts, "kmsg")
    params.update(
        nouveau="nouveau" in mods,
        secure_boot=bool(kernel.get("secure_boot") or kmsg.get("key_rejected")),
    )
    cmds = list(fixes.module_reload(h))
    if params["secure_boot"]:
        cmds += [
            fixes.comment("secure_boot"),
            "mokutil --sb-state",
            "sudo mokutil --import /var/lib/shim-signed/mok/MOK.der",
        ]
    if params["nouveau"]:
        cmds += [fixes.comment("nouveau_blacklist"), *_nouveau_fix()]
    if h.wsl:
        cmds = list(fixes.driver_install(h))
    key = "nvidia.driver_not_loaded_nouveau" if params["nouveau"] else "nvidia.driver_not_loaded"
    if params["secure_boot"] and not params["nouveau"]:
        key = "nvidia.driver_secure_boot"
    return Finding(key, "error", params, tuple(cmds))


def _xid_params(inp: Inputs) -> dict[str, Any]:
    xids = found(inp.facts, "kmsg").get("xids") or []
    return {"xids": ", ".join(str(x["code"]) for x in xids[-5:]) or "—"}


def _gpu_lost_fix(h: Any) -> tuple[str, ...]:
    """A GPU that fell off the bus: power, heat, seating, firmware — not the software stack."""
    logs = (
        "sudo dmesg | grep -iE 'xid|nvrm' | tail -n 20",
        "nvidia-smi -q -d TEMPERATURE,POWER,PERFORMANCE",
        fixes.comment("power_thermal"),
    )
    return (fixes.comment("host_side"), *logs) if h.place == "container" else logs


def _nouveau_fix() -> tuple[str, ...]:
    return (
        "echo 'blacklist nouveau' | sudo tee /etc/modprobe.d/blacklist-nouveau.conf",
        "sudo update-initramfs -u || sudo dracut --force",
        "sudo reboot",
    )


def _os_blocked_fix(inp: Inputs) -> tuple[str, ...]:
    """WSL2: Windows driver, WSL kernel, TCC vs WDDM, stray Linux drivers."""
    wsl = found(inp.facts, "wsl")
    cmds = [fixes.comment("on_windows"), "nvidia-smi", "wsl --update", "wsl --shutdown"]
    cmds += [fixes.comment("tcc_to_wddm"), "nvidia-smi -g 0 -dm 0"]
    stray = wsl.get("linux_driver_packages") or []
    if stray:
        cmds += [fixes.comment("in_wsl"), fixes.remove_packages(inp.host, stray)]
    return tuple(cmds)


def _zero_gpus(inp: Inputs, driver: str, on_bus: int) -> Finding:
    params = {"driver": driver or "?", "on_bus": on_bus}
    if inp.host.place == "container":
        return Finding("nvidia.zero_gpus_container", "error", params, fixes.gpu_into_container())
    cmds = ("lsmod | grep nvidia", "lspci | grep -i nvidia", *fixes.module_reload(inp.host))
    if not on_bus and found(inp.facts, "kernel").get("pci_gpus") is not None:
        return Finding(
            "nvidia.zero_gpus_no_device", "error", params, (fixes.comment("cloud_type"),)
        )
    return Finding("nvidia.zero_gpus", "error", params, cmds)


def _ok(inp: Inputs, gpus: list[NvidiaGpu], driver: str) -> Finding:
    names = sorted({g.name or "?" for g in gpus})
    params = {
        "count": len(gpus),
        "names": ", ".join(names),
        "driver": driver or "?",
        "cuda": driver_max_cuda(inp.facts) or "?",
    }
    return Finding("nvidia.ok", "ok", params)


def kernel_log(inp: Inputs) -> list[Finding]:
    """Xid errors in the kernel log while the driver otherwise answers."""
    kmsg = found(inp.facts, "kmsg")
    xids = kmsg.get("xids") or []
    reasons = _reasons(inp)
    if "gpu_lost" in reasons:
        return []
    if not xids and kmsg.get("fallen_off_bus"):
        params = {"detail": "NVRM: fallen off the bus", "xids": "79"}
        return [Finding("nvidia.gpu_lost", "error", params, _gpu_lost_fix(inp.host))]
    if not xids:
        return []
    codes = sorted({int(x["code"]) for x in xids})
    level: Level = "error" if kmsg.get("fallen_off_bus") and not nvidia_gpus(inp.facts) else "warn"
    key = "nvidia.gpu_lost" if level == "error" else "nvidia.xid"
    params = {"xids": ", ".join(str(c) for c in codes), "detail": xids[-1].get("text", "")}
    return [Finding(key, level, params, _gpu_lost_fix(inp.host))]


def gpu_health(inp: Inputs) -> list[Finding]:
    """ECC, row remapping, throttling, PCIe width, MIG — per GPU."""
    out: list[Finding] = []
    cmds: tuple[str, ...]
    for g in nvidia_gpus(inp.facts):
        p: dict[str, Any] = {"gpu": _index(g), "name": g.name}
        unc_v = g.ecc_uncorrected_volatile or 0
        if unc_v or g.remapped_rows_failure:
            cmds = (
                "nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT",
                f"sudo nvidia-smi -r -i {p['gpu']}",
            )
            out.append(Finding("nvidia.ecc_uncorrected", "error", {**p, "count": unc_v}, cmds))
        elif (g.ecc_uncorrected_aggregate or 0) or g.retired_pending or g.remapped_rows_pending:
            count = g.ecc_uncorrected_aggregate or 0
            cmds = ("nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT",)
            out.append(Finding("nvidia.ecc_history", "warn", {**p, "count": count}, cmds))
        out += _throttle(g, p)
        width, width_max = g.pcie_width, g.pcie_width_max
        if width and width_max and width < width_max:
            cmds = (_PCIE_QUERY,)
            out.append(
                Finding("nvidia.pcie_narrow", "warn", {**p, "width": width, "max": width_max}, cmds)
            )
        if g.mig_mode == "Enabled":
            out.append(Finding("nvidia.mig", "info", p, ("nvidia-smi -L",)))
    return out


def _index(g: NvidiaGpu) -> int | str:
    """The GPU's index for messages and commands ("?" when the source did not number it)."""
    return g.index if g.index is not None else "?"


def _throttle(g: NvidiaGpu, p: dict[str, Any]) -> list[Finding]:
    active = set(g.throttle_active)
    cmds = ("nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER",)
    out = []
    thermal = active & {"hw_thermal_slowdown", "sw_thermal_slowdown"}
    if thermal:
        params = {**p, "reasons": ", ".join(sorted(thermal)), "temp": g.temperature_c or "?"}
        out.append(Finding("nvidia.throttle_thermal", "warn", params, cmds))
    power = active & {"hw_power_brake_slowdown", "hw_slowdown"}
    if power:
        out.append(
            Finding(
                "nvidia.throttle_power", "warn", {**p, "reasons": ", ".join(sorted(power))}, cmds
            )
        )
    return out


def _holder(p: GpuProcess) -> str:
    """ "python (pid 123, 40.1 GiB)"."""
    gib = (p.used_memory_bytes or 0) / GIB
    return f"{p.name or '?'} (pid {p.pid}, {gib:.1f} GiB)"


def memory_held(inp: Inputs) -> list[Finding]:
    """Other processes holding most of a GPU's memory (the usual cause of "out of memory")."""
    out = []
    for g in nvidia_gpus(inp.facts):
        total = g.memory_total_bytes or 0
        procs = [p for p in g.processes if p.used_memory_bytes]
        held = sum(p.used_memory_bytes or 0 for p in procs)
        if not total or held <= HELD_MEMORY_FRACTION * total:
            continue
        top = sorted(procs, key=lambda p: -(p.used_memory_bytes or 0))[:3]
        who = ", ".join(_holder(p) for p in top)
        params = {
            "gpu": _index(g),
            "held_gib": round(held / GIB, 1),
            "total_gib": round(total / GIB, 1),
            "who": who,
        }
        cmds = (
            "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv",
            f"kill {top[0].pid}",
        )
        out.append(Finding("nvidia.memory_held", "warn", params, cmds))
    return out


RULES = (driver_state, kernel_log, gpu_health, memory_held)
IDS = (
    "nvidia.os_blocked",
    "nvidia.version_mismatch",
    "nvidia.gpu_lost",
    "nvidia.xid",
    "nvidia.no_permission",
    "nvidia.driver_not_loaded",
    "nvidia.driver_not_loaded_nouveau",
    "nvidia.driver_secure_boot",
    "nvidia.driver_ignores_gpu",
    "nvidia.zero_gpus",
    "nvidia.zero_gpus_container",
    "nvidia.zero_gpus_no_device",
    "nvidia.ok",
    "nvidia.smi_hung",
    "nvidia.no_driver",
    "nvidia.smi_error",
    "nvidia.ecc_uncorrected",
    "nvidia.ecc_history",
    "nvidia.throttle_thermal",
    "nvidia.throttle_power",
    "nvidia.pcie_narrow",
    "nvidia.mig",
    "nvidia.memory_held",
    "container.gpu_not_passed",
    "container.nvml_lost",
)
