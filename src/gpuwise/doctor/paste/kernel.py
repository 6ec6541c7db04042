"""Kernel-side text: dmesg NVRM/Xid lines, `lsmod`, `modprobe` refusals, `uname -a`,
/etc/os-release (and hostnamectl's "Operating System"), WSL kernel strings."""

from __future__ import annotations

import re

from gpuwise.doctor.paste.model import Block, line_span
from gpuwise.parse.kmsg import parse_kmsg
from gpuwise.parse.os_release import package_manager, parse_os_release

_NVRM = re.compile(r"NVRM:|Key was rejected by service")
_UNAME = re.compile(
    r"^(?:\$\s*)?Linux\s+\S+\s+(\d+\.\d+\.\d+\S*)\s+#\S+.*?(x86_64|aarch64|arm64)?(?:\s+GNU/Linux)?\s*$",
    re.M,
)
_KERNEL_ANY = re.compile(
    r"\b(\d+\.\d+\.\d+(?:\.\d+)?-(?:microsoft-standard(?:-WSL2)?|\d+-Microsoft)\S*)", re.I
)
_OSREL = re.compile(r'^(?:NAME|ID|VERSION_ID|PRETTY_NAME|ID_LIKE|VERSION)="?[^\n]*$', re.M)
_HOSTNAMECTL = re.compile(r"^\s*Operating System:\s*(.+?)\s*$", re.M)
_LSMOD = re.compile(r"^(nvidia|nvidia_uvm|nvidia_drm|nouveau|amdgpu)\s+\d+\s+\d+", re.M)
_WSL_TEMPLATE = re.compile(r"^\s*-\s*\[[xX]\]\s*WSL\s*([12])\s*$", re.M)
_DPKG_L = re.compile(
    r"^([a-zA-Z][a-zA-Z ]?[A-Z]?)\s+((?:lib)?nvidia-[\w.-]+?)(?::\w+)?\s+(\d[\w.+~-]*)\s", re.M
)
_PROC_VERSION = re.compile(r"NVRM version:\s*NVIDIA UNIX.*?Kernel Module\s+(\d+\.\d+(?:\.\d+)?)")


def _dpkg_status(flags: str) -> str:
    """dpkg -l's two-letter state as the Status text of /var/lib/dpkg/status."""
    f = flags.strip()
    return {
        "ii": "install ok installed",
        "iU": "install ok unpacked",
        "iF": "install ok half-configured",
        "iH": "install ok half-installed",
    }.get(f, f"state {f}")


def find(text: str) -> list[Block]:
    out = []
    first = _NVRM.search(text)
    if first:
        lines = [
            ln
            for ln in text.splitlines()
            if "NVRM" in ln or "Key was rejected" in ln or "Xid" in ln
        ]
        start, _ = line_span(text, first.start())
        out.append(Block("dmesg (NVRM)", start, start + 1, parse_kmsg("\n".join(lines))))
    proc = _PROC_VERSION.search(text)
    if proc:
        start, end = line_span(text, proc.start())
        out.append(
            Block(
                "/proc/driver/nvidia/version", start, end, {"nvidia_module_version": proc.group(1)}
            )
        )
    mods = sorted({m.group(1) for m in _LSMOD.finditer(text)})
    if mods:
        m0 = _LSMOD.search(text)
        start, end = line_span(text, m0.start())  # type: ignore[union-attr]
        out.append(Block("lsmod", start, end, {"modules": mods}))
    for m in _UNAME.finditer(text):
        out.append(
            Block(
                "uname -a", m.start(), m.end(), {"kernel": m.group(1), "machine": m.group(2) or ""}
            )
        )
        break
    k = _KERNEL_ANY.search(text)
    if k:
        start, end = line_span(text, k.start())
        out.append(Block("WSL kernel", start, end, {"kernel": k.group(1)}))
    tmpl = _WSL_TEMPLATE.search(text)
    if tmpl:
        start, end = line_span(text, tmpl.start())
        out.append(Block("WSL issue template", start, end, {"wsl_version": int(tmpl.group(1))}))
    pkgs = [
        {"name": m.group(2), "version": m.group(3), "status": _dpkg_status(m.group(1))}
        for m in _DPKG_L.finditer(text)
    ]
    if pkgs:
        first = _DPKG_L.search(text)
        start, end = line_span(text, first.start())  # type: ignore[union-attr]
        out.append(Block("dpkg -l", start, end, {"driver_packages": pkgs[:40]}))
    osrel = list(_OSREL.finditer(text))
    if len(osrel) >= 2:
        body = "\n".join(m.group(0) for m in osrel[:12])
        rel = parse_os_release(body)
        if rel.get("ID") or rel.get("NAME"):
            facts = {"os_release": rel, "package_manager": package_manager(rel, {})}
            out.append(Block("/etc/os-release", osrel[0].start(), osrel[-1].end(), facts))
    hc = _HOSTNAMECTL.search(text)
    if hc:
        start, end = line_span(text, hc.start())
        out.append(Block("hostnamectl", start, end, {"os_name": hc.group(1)}))
    return out
