"""Huawei Ascend NPUs: the `npu-smi info` table, /dev/davinci*, the CANN toolkit."""

from __future__ import annotations

import re
from typing import Any

from gpuwise.probe.context import ProbeContext
from gpuwise.probe.result import Failed, Found, Missing, ProbeResult
from gpuwise.probe.run import run_cmd, which

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


def probe_ascend(ctx: ProbeContext) -> ProbeResult:
    """`npu-smi info`; Missing when neither the tool nor /dev/davinci* exist."""
    davinci = [n for n in ctx.glob("/dev", "davinci*") if n[7:].isdigit()]
    facts: dict[str, Any] = {
        "davinci": davinci,
        "toolkit": ctx.exists("/usr/local/Ascend/ascend-toolkit/latest"),
        "visible": ctx.env.get("ASCEND_RT_VISIBLE_DEVICES", ""),
    }
    if which("npu-smi", ctx.env) is None:
        return Found(facts) if davinci else Missing("not_present")
    res = run_cmd(["npu-smi", "info"], ctx.left(6.0), ctx.env)
    if res.timed_out:
        return Failed("timeout", "npu-smi did not answer", facts)
    try:
        return Found({**facts, **parse_npu_smi_info(res.stdout)})
    except ValueError:
        return Failed("garbage" if res.rc == 0 else "error", res.first_line(), facts)
