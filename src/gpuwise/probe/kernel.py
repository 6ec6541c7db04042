"""Kernel side: loaded modules, GPUs on the PCI bus, device nodes, Secure Boot, /dev/shm, groups.

All from files (/proc, /sys, /dev), so it is fast and works even when no vendor tool is
installed: "an NVIDIA GPU is on the bus but no driver is loaded" needs exactly this.
"""

from __future__ import annotations

import os
import re
from typing import Any

from gpuwise.probe.context import ProbeContext
from gpuwise.probe.result import Found, ProbeResult

# PCI vendor ids (the hex in /sys/bus/pci/devices/*/vendor).
PCI_VENDORS = {"0x10de": "nvidia", "0x1002": "amd", "0x8086": "intel", "0x19e5": "huawei"}
_MODULES = ("nvidia", "nvidia_uvm", "nvidia_drm", "nouveau", "amdgpu", "i915", "xe", "drv_davinci")
_GPU_CLASSES = ("0x03", "0x12")  # display controllers; processing accelerators (Ascend NPUs)


def parse_modules(text: str) -> list[str]:
    """Names of loaded modules from /proc/modules."""
    return [line.split()[0] for line in text.splitlines() if line.strip()]


def parse_nvidia_proc_version(text: str) -> str:
    """The kernel module's driver version from /proc/driver/nvidia/version ("" if absent)."""
    m = re.search(r"Kernel Module(?: for [\w.]+)?\s+(\d+\.\d+(?:\.\d+)?)", text)
    return m.group(1) if m else ""


def pci_gpus(ctx: ProbeContext) -> list[dict[str, str]]:
    """GPUs and accelerators on the PCI bus: vendor name, device id, class, bus address."""
    out = []
    base = "/sys/bus/pci/devices"
    for addr in ctx.listdir(base):
        cls = (ctx.read(f"{base}/{addr}/class") or "").strip()
        if not cls.startswith(_GPU_CLASSES):
            continue
        vendor_id = (ctx.read(f"{base}/{addr}/vendor") or "").strip().lower()
        vendor = PCI_VENDORS.get(vendor_id)
        if vendor is None or (vendor == "huawei" and not cls.startswith("0x12")):
            continue
        device = (ctx.read(f"{base}/{addr}/device") or "").strip().lower()
        out.append({"vendor": vendor, "device_id": device, "class": cls, "address": addr})
    return out


def secure_boot(ctx: ProbeContext) -> bool | None:
    """Secure Boot state from the EFI variable (None when unknown: BIOS boot, no efivarfs)."""
    names = ctx.glob("/sys/firmware/efi/efivars", "SecureBoot-*")
    if not names:
        return None
    try:
        data = ctx.path(f"/sys/firmware/efi/efivars/{names[0]}").read_bytes()
    except OSError:
        return None
    return bool(data[4]) if len(data) > 4 else None


def shm_bytes(ctx: ProbeContext) -> int | None:
    """Size of /dev/shm (Docker's default is small; NCCL and DataLoader workers use it)."""
    try:
        st = os.statvfs(ctx.path("/dev/shm"))
    except (OSError, AttributeError):
        return None
    return st.f_frsize * st.f_blocks


def user_groups() -> list[str]:
    """Names of the groups this process is in (video/render matter for AMD and Intel)."""
    try:
        import grp

        return sorted({grp.getgrgid(g).gr_name for g in os.getgroups()})
    except (ImportError, KeyError, OSError):
        return []


def device_nodes(ctx: ProbeContext) -> dict[str, Any]:
    """GPU device nodes present and whether this user may open them."""
    nvidia = ctx.glob("/dev", "nvidia*")
    kfd = ctx.exists("/dev/kfd")
    return {
        "nvidia": nvidia,
        "dxg": ctx.exists("/dev/dxg"),
        "kfd": kfd,
        "kfd_rw": kfd and os.access(ctx.path("/dev/kfd"), os.R_OK | os.W_OK),
        "dri_render": ctx.glob("/dev/dri", "renderD*"),
        "davinci": [n for n in ctx.glob("/dev", "davinci*") if n[7:].isdigit()],
    }


def probe_kernel(ctx: ProbeContext) -> ProbeResult:
    """Modules, PCI GPUs, device nodes, Secure Boot, shared memory and groups."""
    loaded = parse_modules(ctx.read("/proc/modules") or "")
    facts: dict[str, Any] = {
        "modules": [m for m in _MODULES if m in loaded],
        "modules_readable": ctx.exists("/proc/modules"),
        "nvidia_module_version": parse_nvidia_proc_version(
            ctx.read("/proc/driver/nvidia/version") or ""
        ),
        "pci_gpus": pci_gpus(ctx),
        "devices": device_nodes(ctx),
        "secure_boot": secure_boot(ctx),
        "shm_bytes": shm_bytes(ctx),
        "groups": user_groups(),
        "rocm_version": (ctx.read("/opt/rocm/.info/version") or "").strip(),
        "ascend_toolkit": ctx.exists("/usr/local/Ascend/ascend-toolkit/latest"),
    }
    return Found(facts)
