"""WSL: which version, whether the GPU paravirtualisation device is there, and whether a Linux
NVIDIA driver was (wrongly) installed inside the distribution.

NVIDIA's CUDA-on-WSL guide: the Windows driver is exposed inside WSL 2 as libcuda.so under
/usr/lib/wsl/lib; no Linux display driver may be installed in the distribution.
"""

from __future__ import annotations

import re
from typing import Any

from gpuwise.parse.result import Found, Missing, ProbeResult
from gpuwise.probe.context import ProbeContext

# Debian packages that carry a Linux NVIDIA driver or its user-space libraries.
_DRIVER_PKG = re.compile(
    r"^(nvidia-driver-\S+|nvidia-utils-\S+|libnvidia-compute-\S+|nvidia-dkms-\S+|cuda-drivers\S*)$"
)


def is_wsl(osrelease: str, env: dict[str, str]) -> int:
    """0 for not WSL, else the WSL version (1 or 2) from the kernel release string."""
    low = osrelease.lower()
    if "microsoft" not in low and not env.get("WSL_DISTRO_NAME"):
        return 0
    return 2 if ("wsl2" in low or "microsoft-standard" in low) else 1


def installed_driver_packages(dpkg_status: str) -> list[str]:
    """Installed packages from /var/lib/dpkg/status that put a Linux NVIDIA driver in place."""
    out = []
    name = ""
    for line in dpkg_status.splitlines():
        if line.startswith("Package: "):
            name = line[9:].strip()
        elif (
            line.startswith("Status: ")
            and "install ok installed" in line
            and _DRIVER_PKG.match(name)
        ):
            out.append(name)
    return sorted(set(out))


def probe_wsl(ctx: ProbeContext) -> ProbeResult:
    """WSL version, /dev/dxg, the injected Windows driver libraries, and stray Linux drivers."""
    osrelease = ctx.read("/proc/sys/kernel/osrelease") or ctx.read("/proc/version") or ""
    version = is_wsl(osrelease, ctx.env)
    if not version:
        return Missing("not_wsl")
    facts: dict[str, Any] = {
        "version": version,
        "kernel": osrelease.strip(),
        "distro": ctx.env.get("WSL_DISTRO_NAME", ""),
        "dxg": ctx.exists("/dev/dxg"),
        "wsl_libcuda": bool(ctx.glob("/usr/lib/wsl/lib", "libcuda.so*")),
        "wsl_nvidia_smi": ctx.exists("/usr/lib/wsl/lib/nvidia-smi"),
        "linux_driver_packages": installed_driver_packages(
            ctx.read("/var/lib/dpkg/status", limit=64 * 1024 * 1024) or ""
        ),
        "linux_nvidia_smi": ctx.exists("/usr/bin/nvidia-smi"),
        "linux_libcuda": bool(ctx.glob("/usr/lib/x86_64-linux-gnu", "libcuda.so.*")),
    }
    return Found(facts)
