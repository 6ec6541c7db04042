"""Kernel-log (`dmesg`) GPU lines parsed into facts: NVRM messages, Xid errors, the module
that loaded, API mismatches, legacy-branch GPUs (pure: the live probe and `doctor --from` both
read through here).
"""

from __future__ import annotations

import re
from typing import Any

_RELEVANT = re.compile(r"NVRM|nvidia|Xid|amdgpu|\bkfd\b|drv_davinci|Key was rejected", re.I)
_NVRM = re.compile(r"NVRM:\s*(.*)")
_MODULE = re.compile(
    r"NVRM: loading NVIDIA UNIX.*?Kernel Module(?: for \S+)?\s+(\d+\.\d+(?:\.\d+)?)"
)
_XID = re.compile(r"NVRM: Xid \(PCI:([0-9A-Fa-f:.]+)\):\s*(\d+),\s*(.*)")
_MISMATCH = re.compile(
    r"API mismatch: the client has the version (\d+(?:\.\d+)+),? but this kernel module has "
    r"the version (\d+(?:\.\d+)+)"
)
_LEGACY = re.compile(
    r"The NVIDIA (.+?) GPU installed in this system is supported through the NVIDIA "
    r"(\d+)\.xx (?:Legacy )?drivers?.*?The (\d+\.\d+(?:\.\d+)?) NVIDIA driver will ignore"
)
_MAX_LINES = 400


def relevant_lines(text: str) -> list[str]:
    """The GPU-related lines of a kernel log, timestamps kept (the last ones win)."""
    return [ln.rstrip() for ln in text.splitlines() if _RELEVANT.search(ln)][-_MAX_LINES:]


def _flat_nvrm(lines: list[str]) -> str:
    """NVRM messages wrapped over several lines, joined into one searchable string."""
    parts = [m.group(1).strip() for ln in lines if (m := _NVRM.search(ln))]
    return re.sub(r"\s+", " ", " ".join(parts))


def parse_kmsg(text: str) -> dict[str, Any]:
    """Facts from kernel-log lines: module version, Xids, API mismatch, legacy-branch GPUs."""
    lines = relevant_lines(text)
    flat = _flat_nvrm(lines)
    versions = [m.group(1) for ln in lines if (m := _MODULE.search(ln))]
    xids = [
        {"pci": m.group(1), "code": int(m.group(2)), "text": m.group(3).strip()[:200]}
        for ln in lines
        if (m := _XID.search(ln))
    ]
    mismatch = _MISMATCH.search(flat)
    legacy = [
        {"gpu": m.group(1).strip(), "branch": m.group(2), "driver": m.group(3)}
        for m in _LEGACY.finditer(flat)
    ]
    return {
        "lines": lines[-20:],
        "module_version": versions[-1] if versions else "",
        "xids": xids[-20:],
        "fallen_off_bus": "fallen off the bus" in flat or any(x["code"] == 79 for x in xids),
        "api_mismatch": {"client": mismatch.group(1), "kernel": mismatch.group(2)}
        if mismatch
        else None,
        "legacy": legacy[:8],
        "no_gpu_found": "No NVIDIA GPU found" in flat,
        "key_rejected": any("Key was rejected" in ln for ln in lines),
    }
