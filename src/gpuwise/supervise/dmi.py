"""Read the DMI strings the cloud rules need from sysfs (`<root>/class/dmi/id/<field>`).

The root is `/sys`, or `GPUWISE_SYSFS_ROOT` (tests point it at a fake tree). Unreadable files
(product_uuid and friends are root-only; the fields used here are world-readable) are skipped.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

_READ_LIMIT = 4096  # bytes: a DMI string is at most a few dozen


def sysfs_root() -> Path:
    """Where sysfs is mounted (or a test's fake tree)."""
    return Path(os.environ.get("GPUWISE_SYSFS_ROOT", "/sys"))


def read_dmi(fields: Iterable[str], root: Path | None = None) -> dict[str, str]:
    """The named DMI fields that could be read, stripped."""
    base = (root or sysfs_root()) / "class" / "dmi" / "id"
    out: dict[str, str] = {}
    for name in fields:
        try:
            with (base / name).open("rb") as fh:
                out[name] = fh.read(_READ_LIMIT).decode("utf-8", errors="replace").strip()
        except OSError:
            continue
    return out
