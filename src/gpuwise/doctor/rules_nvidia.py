"""NVIDIA driver and GPU health: can the driver be reached, how many GPUs, are they healthy.

Covers the guide's §7 rows "Failed to initialize NVML: GPU access blocked by the operating
system" (WSL2), "nvidia-smi shows 0 GPUs on a cloud instance" and "CUDA out of memory" (another
process holding the memory), plus ECC errors, throttling and narrowed PCIe links.
"""

from __future__ import annotations

from typing import Any

from gpuwise.doctor import fixes
from gpuwise.doctor.inputs import Inputs
from gpuwise.doctor.model import Finding
from gpuwise.doctor.policy import GIB, HELD_MEMORY_FRACTION
from gpuwise.doctor.view import (
    driver_max_cuda,
    driver_version,
    found,
    nvidia_gpus,
    pci_vendor_count,
)
from gpuwise.probe.result import Failed, Found, Missing, TimedOut

_PCIE_QUERY = (
    "nvidia-smi --query-gpu=index,pcie.link.gen.current,pcie.link.gen.max,"
    "pcie.link.width.current,pcie.link.width.max --format=csv"
)
# Failure reasons in priority order: the first one seen explains the others.
_BLOCKING = ("os_blocked", "version_mismatch", "gpu_lost", "no_permission", "driver_not_loaded")


def _reasons(inp: Inputs) -> dict[str, str]:
    """Failure reason → detail, from nvidia-smi and NVML."""
    out: dict[str, str] = {}
    for name in ("nvidia_smi", "nvml"):
        r = inp.facts.get(name)
        if isinstance(r, Failed | Missing) and r.reason:
            out.setdefault(r.reason, r.detail)
    return out


def driver_state(inp: Inputs) -> list[Finding]:
    """One finding on whether the NVIDIA driver answers, and if not, why."""
    reasons = _reasons(inp)
    h = inp.host
    for reason in _BLOCKING:
        if reason in reasons:
            return [_blocking(inp, reason, reasons[reason])]
    smi = inp.facts.get("nvidia_smi")
    gpus = nvidia_gpus(inp.facts)
    on_bus = pci_vendor_count(inp.facts, "nvidia")
    driver = driver_version(inp.facts)
    if "no_devices" in reasons or (driver and not gpus and _any_found(inp)):
        return [_zero_gpus(inp, driver, on_bus)]
    if gpus:
        return [_ok(inp, gpus, driver)]
    if isinstance(smi, TimedOut) or reasons.get("timeout") is not None:
        return [Finding("nvidia.smi_hung", "error", {}, fixes.module_reload())]
    if on_bus and "not_installed" in reasons:
        return [Finding("nvidia.no_driver", "error", {"count": on_bus}, fixes.driver_install(h))]
    failed = [r for r in (smi, inp.facts.get("nvml")) if isinstance(r, Failed)]
    if failed:
        params = {"reason": failed[0].reason, "detail": failed[0].detail or failed[0].reason}
        return [Finding("nvidia.smi_error", "warn", params, ("nvidia-smi",))]
    return []


def _any_found(inp: Inputs) -> bool:
    return any(isinstance(inp.facts.get(n), Found) for n in ("nvidia_smi", "nvml"))


def _blocking(inp: Inputs, reason: str, detail: str) -> Finding:
    h = inp.host
    kernel = found(inp.facts, "kernel")
    params: dict[str, Any] = {"detail": detail or reason}
    if reason == "os_blocked":
        return Finding("nvidia.os_blocked", "error", params, _os_blocked_fix(inp))
    if reason == "version_mismatch":
        reboot = (fixes.comment("reboot_or_reload"), "sudo reboot")
        return Finding("nvidia.version_mismatch", "error", params, reboot)
    if reason == "gpu_lost":
        logs = ("sudo dmesg | grep -iE 'xid|nvrm' | tail -n 20", "nvidia-smi -q -d ECC,PERFORMANCE")
        return Finding("nvidia.gpu_lost", "error", params, logs)
    if reason == "no_permission":
        return Finding("nvidia.no_permission", "error", params, ("ls -l /dev/nvidia*",))
    mods = kernel.get("modules") or []
    params.update(
        nouveau="nouveau" in mods,
        secure_boot=bool(kernel.get("secure_boot")),
    )
    cmds = list(fixes.module_reload())
    if params["secure_boot"]:
        cmds += [fixes.comment("secure_boot"), "mokutil --sb-state"]
    if params["nouveau"]:
        cmds += [fixes.comment("nouveau_blacklist"), *_nouveau_fix()]
    if h.wsl:
        cmds = list(fixes.driver_install(h))
    key = "nvidia.driver_not_loaded_nouveau" if params["nouveau"] else "nvidia.driver_not_loaded"
    return Finding(key, "error", params, tuple(cmds))


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
    container = found(inp.facts, "container")
    params = {"driver": driver or "?", "on_bus": on_bus}
    if container.get("in_container"):
        cmds: tuple[str, ...] = (fixes.comment("container_gpus"), "docker run --gpus all …")
        return Finding("nvidia.zero_gpus_container", "error", params, cmds)
    cmds = ("lsmod | grep nvidia", "lspci | grep -i nvidia", *fixes.module_reload())
    if not on_bus and found(inp.facts, "kernel").get("pci_gpus") is not None:
        return Finding(
            "nvidia.zero_gpus_no_device", "error", params, (fixes.comment("cloud_type"),)
        )
    return Finding("nvidia.zero_gpus", "error", params, cmds)


def _ok(inp: Inputs, gpus: list[dict[str, Any]], driver: str) -> Finding:
    names = sorted({str(g.get("name") or "?") for g in gpus})
    params = {
        "count": len(gpus),
        "names": ", ".join(names),
        "driver": driver or "?",
        "cuda": driver_max_cuda(inp.facts) or "?",
    }
    return Finding("nvidia.ok", "ok", params)


def gpu_health(inp: Inputs) -> list[Finding]:
    """ECC, row remapping, throttling, PCIe width, MIG — per GPU."""
    out: list[Finding] = []
    cmds: tuple[str, ...]
    for g in nvidia_gpus(inp.facts):
        p = {"gpu": g.get("index", "?"), "name": g.get("name", "")}
        unc_v = g.get("ecc_uncorrected_volatile") or 0
        if unc_v or g.get("remapped_rows_failure"):
            cmds = (
                "nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT",
                f"sudo nvidia-smi -r -i {p['gpu']}",
            )
            out.append(Finding("nvidia.ecc_uncorrected", "error", {**p, "count": unc_v}, cmds))
        elif (
            (g.get("ecc_uncorrected_aggregate") or 0)
            or g.get("retired_pending")
            or g.get("remapped_rows_pending")
        ):
            count = g.get("ecc_uncorrected_aggregate") or 0
            cmds = ("nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT",)
            out.append(Finding("nvidia.ecc_history", "warn", {**p, "count": count}, cmds))
        out += _throttle(g, p)
        width, width_max = g.get("pcie_width"), g.get("pcie_width_max")
        if width and width_max and width < width_max:
            cmds = (_PCIE_QUERY,)
            out.append(
                Finding("nvidia.pcie_narrow", "warn", {**p, "width": width, "max": width_max}, cmds)
            )
        if g.get("mig_mode") == "Enabled":
            out.append(Finding("nvidia.mig", "info", p, ("nvidia-smi -L",)))
    return out


def _throttle(g: dict[str, Any], p: dict[str, Any]) -> list[Finding]:
    active = set(g.get("throttle_active") or [])
    cmds = ("nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER",)
    out = []
    thermal = active & {"hw_thermal_slowdown", "sw_thermal_slowdown"}
    if thermal:
        params = {**p, "reasons": ", ".join(sorted(thermal)), "temp": g.get("temperature_c") or "?"}
        out.append(Finding("nvidia.throttle_thermal", "warn", params, cmds))
    power = active & {"hw_power_brake_slowdown", "hw_slowdown"}
    if power:
        out.append(
            Finding(
                "nvidia.throttle_power", "warn", {**p, "reasons": ", ".join(sorted(power))}, cmds
            )
        )
    return out


def _holder(p: dict[str, Any]) -> str:
    """ "python (pid 123, 40.1 GiB)"."""
    gib = int(p["used_memory_bytes"]) / GIB
    return f"{p.get('name') or '?'} (pid {p.get('pid')}, {gib:.1f} GiB)"


def memory_held(inp: Inputs) -> list[Finding]:
    """Other processes holding most of a GPU's memory (the usual cause of "out of memory")."""
    out = []
    for g in nvidia_gpus(inp.facts):
        total = g.get("memory_total_bytes") or 0
        procs = [p for p in g.get("processes") or [] if p.get("used_memory_bytes")]
        held = sum(int(p["used_memory_bytes"]) for p in procs)
        if not total or held <= HELD_MEMORY_FRACTION * total:
            continue
        top = sorted(procs, key=lambda p: -int(p["used_memory_bytes"]))[:3]
        who = ", ".join(_holder(p) for p in top)
        params = {
            "gpu": g.get("index", "?"),
            "held_gib": round(held / GIB, 1),
            "total_gib": round(total / GIB, 1),
            "who": who,
        }
        cmds = (
            "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv",
            f"kill {top[0].get('pid')}",
        )
        out.append(Finding("nvidia.memory_held", "warn", params, cmds))
    return out


RULES = (driver_state, gpu_health, memory_held)
IDS = (
    "nvidia.os_blocked",
    "nvidia.version_mismatch",
    "nvidia.gpu_lost",
    "nvidia.no_permission",
    "nvidia.driver_not_loaded",
    "nvidia.driver_not_loaded_nouveau",
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
)
