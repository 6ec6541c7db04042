"""`npu-smi info` tables, npu-smi's DCMI error codes and Ascend version files (pure).

Each NPU chip takes two table rows; DCMI failures print "dcmi module initialize failed. ret is
-8005" instead of a table, and the code is kept (the catalog says what it means).
"""

from __future__ import annotations

import re
from typing import Any

_PAIR = re.compile(r"(\d+)\s*/\s*(\d+)")
_HEALTH = {"OK", "Warning", "Alarm", "Critical", "UNKNOWN", "Unknown"}
MB = 1024 * 1024


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _num(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def parse_npu_smi_info(text: str) -> dict[str, Any]:
    """NPUs from `npu-smi info`: id, chip, name, health, power, temperature, HBM used/total.

    Each NPU chip takes two table rows: "id name | health | power temp hugepages" and
    "chip [phy-id] | bus-id | aicore memory hbm". ValueError when no row is recognised.
    """
    version = re.search(r"npu-smi\s+(\S+)", text)
    npus: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for line in text.splitlines():
        if not line.startswith("|"):
            continue
        cells = _cells(line)
        if len(cells) != 3:
            continue
        left = cells[0].split(maxsplit=1)
        if cells[1] in _HEALTH and left and left[0].isdigit():
            stats = cells[2].split()
            current = {
                "npu": int(left[0]),
                "name": left[1] if len(left) > 1 else "",
                "health": cells[1],
                "power_w": _num(stats[0]) if stats else None,
                "temperature_c": _num(stats[1]) if len(stats) > 1 else None,
            }
        elif current is not None and ":" in cells[1] and left and left[0].isdigit():
            pairs = _PAIR.findall(cells[2])
            used, total = (int(pairs[-1][0]), int(pairs[-1][1])) if pairs else (None, None)
            npus.append(
                {
                    **current,
                    "chip": int(left[0]),
                    "bus_id": cells[1],
                    "memory_used_bytes": used * MB if used is not None else None,
                    "memory_total_bytes": total * MB if total is not None else None,
                }
            )
            current = None
    if not npus:
        raise ValueError("no NPU rows in npu-smi output")
    return {"version": version.group(1) if version else "", "npus": npus}


_DCMI = re.compile(r"ret is (-\d+)")
_VERSION_LINE = re.compile(r"^\s*(?:version|Version)\s*=\s*(\S+)", re.M)


def parse_dcmi_error(text: str) -> int | None:
    """The DCMI return code of an npu-smi failure ("… ret is -8005"), if any."""
    m = _DCMI.search(text)
    return int(m.group(1)) if m else None


def parse_version_info(text: str) -> str:
    """The `version=` / `Version=` value of an Ascend *install.info / version.info file."""
    m = _VERSION_LINE.search(text)
    return m.group(1) if m else ""
