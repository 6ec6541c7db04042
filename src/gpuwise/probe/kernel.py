"""Kernel side: loaded modules, GPUs on the PCI bus, device nodes, Secure Boot, /dev/shm, groups.

All from files (/proc, /sys, /dev), so it is fast and works even when no vendor tool is
installed: "an NVIDIA GPU is on the bus but no driver is loaded" needs exactly this.
"""

from __future__ import annotations

import os
import re
from typing import Any

from gpuwise.parse.result import Found, ProbeResult
from gpuwise.probe.context import ProbeContext

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


def parse_status_ids(status: str) -> tuple[int | None, list[int]]:
    """(uid, supplementary group ids) from /proc/self/status ("Uid:" and "Groups:" lines)."""
    uid: int | None = None
    gids: list[int] = []
    for line in status.splitlines():
        key, _, value = line.partition(":")
        fields = value.split()
        if key == "Uid" and fields and fields[0].isdigit():
            uid = int(fields[0])
        elif key == "Groups":
            gids = [int(g) for g in fields if g.isdigit()]
        elif key == "Gid" and fields and fields[0].isdigit():
            gids.append(int(fields[0]))
    return uid, sorted(set(gids))


def parse_group_file(text: str) -> dict[int, str]:
    """gid → group name from /etc/group."""
    out: dict[int, str] = {}
    for line in text.splitlines():
        parts = line.split(":")
        if len(parts) >= 3 and parts[2].isdigit():
            out[int(parts[2])] = parts[0]
    return out


def identity(ctx: ProbeContext) -> dict[str, Any]:
    """Who this process is: uid, group ids and names (files only, so tests can fake them)."""
    uid, gids = parse_status_ids(ctx.read("/proc/self/status") or "")
    names = parse_group_file(ctx.read("/etc/group") or "")
    return {"uid": uid, "gids": gids, "groups": sorted({names.get(g, str(g)) for g in gids})}


def node_access(ctx: ProbeContext, absolute: str, who: dict[str, Any]) -> dict[str, Any] | None:
    """A device node's group and mode, and whether this user may open it read-write.

    The permission bits decide for a faked tree; on the live system os.access also sees ACLs
    (systemd's "uaccess" on render nodes), so both must allow it there.
    """
    path = ctx.path(absolute)
    try:
        st = path.stat()
    except OSError:
        return None
    names = parse_group_file(ctx.read("/etc/group") or "")
    uid, gids = who.get("uid"), who.get("gids") or []
    mode = st.st_mode & 0o777
    if uid == 0:
        allowed = True
    elif uid == st.st_uid:
        allowed = mode & 0o600 == 0o600
    elif st.st_gid in gids:
        allowed = mode & 0o060 == 0o060
    else:
        allowed = mode & 0o006 == 0o006
    if str(ctx.root) == "/":
        allowed = allowed and os.access(path, os.R_OK | os.W_OK)
    return {"group": names.get(st.st_gid, str(st.st_gid)), "mode": oct(mode), "rw": allowed}


def device_nodes(ctx: ProbeContext, who: dict[str, Any]) -> dict[str, Any]:
    """GPU device nodes present and whether this user may open them."""
    kfd = node_access(ctx, "/dev/kfd", who)
    render = [
        {"node": n, **(node_access(ctx, f"/dev/dri/{n}", who) or {})}
        for n in ctx.glob("/dev/dri", "renderD*")
    ]
    return {
        "nvidia": ctx.glob("/dev", "nvidia*"),
        "dxg": ctx.exists("/dev/dxg"),
        "kfd": kfd is not None,
        "kfd_rw": bool(kfd and kfd["rw"]),
        "kfd_group": kfd["group"] if kfd else "",
        "dri_render": [r["node"] for r in render],
        "render_access": render,
        "davinci": [n for n in ctx.glob("/dev", "davinci*") if n[7:].isdigit()],
    }


_LIB_DIRS = ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib/aarch64-linux-gnu", "/usr/lib")
_VERSIONED = re.compile(r"^libnvidia-ml\.so\.(\d+\.\d+(?:\.\d+)?)$")


def userspace_versions(ctx: ProbeContext) -> list[str]:
    """Driver versions of the installed user-space NVML libraries (libnvidia-ml.so.X.Y.Z)."""
    found = {
        m.group(1)
        for d in _LIB_DIRS
        for name in ctx.glob(d, "libnvidia-ml.so.*")
        if (m := _VERSIONED.match(name))
    }
    return sorted(found)


_DPKG_NVIDIA = re.compile(r"^(nvidia-|libnvidia-|cuda-drivers)")


def dpkg_nvidia(status_text: str) -> list[dict[str, str]]:
    """NVIDIA driver packages in /var/lib/dpkg/status with version and state.

    The state shows a half-finished upgrade ("install ok half-configured", "unpacked"), the
    usual cause of a driver/library version mismatch that a reboot alone does not fix.
    """
    out: list[dict[str, str]] = []
    entry: dict[str, str] = {}
    for line in [*status_text.splitlines(), ""]:
        if not line.strip():
            if _DPKG_NVIDIA.match(entry.get("Package", "")):
                out.append(
                    {
                        "name": entry["Package"],
                        "version": entry.get("Version", ""),
                        "status": entry.get("Status", ""),
                    }
                )
            entry = {}
        elif ": " in line and not line.startswith(" "):
            key, _, value = line.partition(": ")
            if key in ("Package", "Version", "Status"):
                entry[key] = value.strip()
    return out[:60]


def ld_conf_dirs(ctx: ProbeContext) -> list[str]:
    """Library directories configured in /etc/ld.so.conf and /etc/ld.so.conf.d/*.conf."""
    texts = [ctx.read("/etc/ld.so.conf") or ""]
    texts += [
        ctx.read(f"/etc/ld.so.conf.d/{n}") or "" for n in ctx.glob("/etc/ld.so.conf.d", "*.conf")
    ]
    dirs: list[str] = []
    for text in texts:
        for line in text.splitlines():
            line = line.split("#", 1)[0].strip()
            if line.startswith("/") and line not in dirs:
                dirs.append(line)
    return dirs[:40]


_SHADOW_LIBS = ("libcudnn.so*", "libcublas.so*", "libcublasLt.so*", "libnccl.so*")


def ld_conf_gpu_libs(ctx: ProbeContext, dirs: list[str]) -> dict[str, list[str]]:
    """Which configured library directories hold a system cuDNN, cuBLAS or NCCL."""
    out: dict[str, list[str]] = {}
    for d in dirs:
        names = sorted({n for pat in _SHADOW_LIBS for n in ctx.glob(d, pat)})
        if names:
            out[d] = names[:8]
    return out


_DMI_FIELDS = (
    "sys_vendor",
    "product_name",
    "product_version",
    "bios_vendor",
    "bios_version",
    "chassis_asset_tag",
)


def dmi(ctx: ProbeContext) -> dict[str, str]:
    """SMBIOS strings (they name the cloud a VM runs on)."""
    out = {}
    for name in _DMI_FIELDS:
        text = (ctx.read(f"/sys/class/dmi/id/{name}", limit=256) or "").strip()
        if text:
            out[name] = text
    return out


def probe_kernel(ctx: ProbeContext) -> ProbeResult:
    """Modules, PCI GPUs, device nodes, Secure Boot, shared memory and groups."""
    loaded = parse_modules(ctx.read("/proc/modules") or "")
    who = identity(ctx)
    conf_dirs = ld_conf_dirs(ctx)
    facts: dict[str, Any] = {
        "modules": [m for m in _MODULES if m in loaded],
        "modules_readable": ctx.exists("/proc/modules"),
        "nvidia_module_version": parse_nvidia_proc_version(
            ctx.read("/proc/driver/nvidia/version") or ""
        ),
        "nvidia_userspace_versions": userspace_versions(ctx),
        "driver_packages": dpkg_nvidia(
            ctx.read("/var/lib/dpkg/status", limit=64 * 1024 * 1024) or ""
        ),
        "pci_gpus": pci_gpus(ctx),
        "devices": device_nodes(ctx, who),
        "secure_boot": secure_boot(ctx),
        "shm_bytes": shm_bytes(ctx),
        "uid": who["uid"],
        "groups": who["groups"],
        "ld_conf_dirs": conf_dirs,
        "ld_conf_gpu_libs": ld_conf_gpu_libs(ctx, conf_dirs),
        "dmi": dmi(ctx),
        "rocm_version": (ctx.read("/opt/rocm/.info/version") or "").strip(),
        "ascend_toolkit": ctx.exists("/usr/local/Ascend/ascend-toolkit/latest"),
    }
    return Found(facts)
