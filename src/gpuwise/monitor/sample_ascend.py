"""Huawei Ascend NPUs: `npu-smi info` (power, temperature, AICore %, HBM, processes).

The table has two rows per NPU chip — "NPU Name | Health | Power(W) Temp(C) Hugepages" and
"Chip [Phy-ID] | Bus-Id | AICore(%) Memory-Usage(MB) HBM-Usage(MB)" — then a process table
("NPU Chip | Process id | Process name | Process memory(MB) [| Process id in container]").
The row parser is :func:`gpuwise.probe.ascend.parse_npu_smi_info`; this module adds AICore use
and the processes. A "-" (the second chip of an Ascend 910 reports no power) stays None.
"""

from __future__ import annotations

from collections.abc import Mapping

from gpuwise.monitor.model import GpuProcess, GpuReading
from gpuwise.monitor.policy import TOOL_TIMEOUT_S
from gpuwise.parse.npu_smi import parse_npu_smi_info
from gpuwise.probe.run import run_cmd, which

MB = 1024 * 1024


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _aicore(text: str) -> list[float | None]:
    """AICore % of each chip row, in table order."""
    out: list[float | None] = []
    for line in text.splitlines():
        cells = _cells(line) if line.startswith("|") else []
        left = cells[0].split() if cells else []
        if len(cells) == 3 and ":" in cells[1] and left and left[0].isdigit():
            stats = cells[2].split()
            out.append(_float(stats[0]) if stats else None)
    return out


def _processes(text: str) -> dict[tuple[int, int], list[GpuProcess]]:
    """Process-table rows by (npu, chip)."""
    out: dict[tuple[int, int], list[GpuProcess]] = {}
    for line in text.splitlines():
        cells = _cells(line) if line.startswith("|") else []
        ids = cells[0].split() if cells else []
        if len(cells) < 4 or len(ids) != 2 or not all(x.isdigit() for x in ids):
            continue
        if not cells[1].isdigit():
            continue
        mem = _float(cells[3])
        proc = GpuProcess(
            pid=int(cells[1]),
            gpu_memory_bytes=int(mem * MB) if mem is not None else None,
            name=cells[2],
        )
        out.setdefault((int(ids[0]), int(ids[1])), []).append(proc)
    return out


def parse_npu_smi_sample(text: str) -> list[GpuReading]:
    """One reading per NPU chip; ValueError when no NPU row is recognised."""
    npus = parse_npu_smi_info(text)["npus"]
    aicore = _aicore(text)
    procs = _processes(text)
    has_table = "Process id" in text or "No running processes" in text
    readings = []
    for i, npu in enumerate(npus):
        key = (npu["npu"], npu["chip"])
        readings.append(
            GpuReading(
                vendor="ascend",
                index=i,
                name=npu["name"],
                pci_bus_id=npu["bus_id"],
                memory_used_bytes=npu["memory_used_bytes"],
                memory_total_bytes=npu["memory_total_bytes"],
                utilization_pct=aicore[i] if i < len(aicore) else None,
                temperature_c=npu["temperature_c"],
                power_w=npu["power_w"],
                processes=tuple(procs.get(key, ())) if has_table else None,
            )
        )
    return readings


class AscendSource:
    """Sample Ascend NPUs with `npu-smi info` (killed after the tool timeout)."""

    vendor = "ascend"

    def __init__(
        self, env: Mapping[str, str] | None = None, timeout_s: float = TOOL_TIMEOUT_S
    ) -> None:
        self._env = env
        self.timeout_s = timeout_s

    def open(self) -> str:
        """'ok' when npu-smi is on PATH."""
        return "ok" if which("npu-smi", self._env) else "missing:not_present"

    def close(self) -> None:
        """Nothing to free."""

    def read(self) -> list[GpuReading]:
        """TimeoutError when npu-smi hangs; ValueError when its output has no NPU rows."""
        res = run_cmd(["npu-smi", "info"], self.timeout_s, self._env)
        if res.timed_out:
            raise TimeoutError("npu-smi")
        return parse_npu_smi_sample(res.stdout)
