"""Apple silicon GPUs: `ioreg` (no sudo) and, only when allowed, `powermetrics` for power.

`ioreg -r -d 1 -w 0 -c IOAccelerator` prints each accelerator with a `PerformanceStatistics`
dictionary: "Device Utilization %", "Renderer Utilization %", "Tiler Utilization %",
"In use system memory" and "Alloc system memory" in bytes (research notes wave2.md §1; a real
output is in tests/fixtures/ioreg/). Memory is unified, so the GPU's total is the machine's RAM
and the figure shown is what the GPU has in use. GPU power needs root (`powermetrics --samplers
gpu_power`, line "GPU Power: N mW"); gpuwise never calls sudo, so without root power is None.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Mapping
from dataclasses import replace

from gpuwise.monitor.model import GpuReading
from gpuwise.monitor.policy import POWERMETRICS_WINDOW_MS, TOOL_TIMEOUT_S
from gpuwise.probe.run import run_cmd, which

IOREG_ARGS = ("ioreg", "-r", "-d", "1", "-w", "0", "-c", "IOAccelerator")
_BLOCK = re.compile(r"^\+-o (\S+)", re.MULTILINE)
_PAIR = re.compile(r'"([^"]+)"=(-?\d+)')
_MODEL = re.compile(r'"model" = "([^"]*)"')
_GPU_POWER = re.compile(r"GPU (?:HW )?Power:\s*([\d.]+)\s*mW")


def parse_ioreg(text: str, memory_total_bytes: int | None = None) -> list[GpuReading]:
    """One reading per accelerator that has PerformanceStatistics; ValueError when none has."""
    readings: list[GpuReading] = []
    starts = [m.start() for m in _BLOCK.finditer(text)] + [len(text)]
    for begin, end in itertools.pairwise(starts):
        block = text[begin:end]
        stats_line = next(
            (ln for ln in block.splitlines() if '"PerformanceStatistics" =' in ln), ""
        )
        if not stats_line:
            continue
        stats = {k: int(v) for k, v in _PAIR.findall(stats_line)}
        model = _MODEL.search(block)
        cls = _BLOCK.match(block)
        used = stats.get("In use system memory")
        readings.append(
            GpuReading(
                vendor="apple",
                index=len(readings),
                name=model.group(1) if model else (cls.group(1) if cls else ""),
                memory_used_bytes=used,
                memory_total_bytes=memory_total_bytes if used is not None else None,
                utilization_pct=_pct(stats.get("Device Utilization %")),
            )
        )
    if not readings:
        raise ValueError("no PerformanceStatistics in ioreg output")
    return readings


def _pct(value: int | None) -> float | None:
    return float(value) if value is not None else None


def parse_powermetrics_gpu_w(text: str) -> float | None:
    """GPU power in W from `powermetrics --samplers gpu_power` text, None when absent."""
    m = _GPU_POWER.search(text)
    return float(m.group(1)) / 1000 if m else None


class AppleSource:
    """Sample Apple GPUs; ``allow_powermetrics`` runs powermetrics when gpuwise runs as root."""

    vendor = "apple"

    def __init__(
        self,
        env: Mapping[str, str] | None = None,
        allow_powermetrics: bool = True,
        timeout_s: float = TOOL_TIMEOUT_S,
    ) -> None:
        self._env = env
        self._power = allow_powermetrics
        self.timeout_s = timeout_s

    def open(self) -> str:
        """'ok' when ioreg is on PATH (macOS)."""
        return "ok" if which("ioreg", self._env) else "missing:not_present"

    def close(self) -> None:
        """Nothing to free."""

    def read(self) -> list[GpuReading]:
        """TimeoutError when ioreg hangs; ValueError when it shows no GPU statistics."""
        import psutil

        res = run_cmd(IOREG_ARGS, self.timeout_s, self._env)
        if res.timed_out:
            raise TimeoutError("ioreg")
        readings = parse_ioreg(res.stdout, int(psutil.virtual_memory().total))
        power = self._power_w()
        if power is None or not readings:
            return readings
        return [replace(readings[0], power_w=power), *readings[1:]]

    def _power_w(self) -> float | None:
        geteuid = getattr(os, "geteuid", None)
        if not self._power or geteuid is None or geteuid() != 0:
            return None
        if which("powermetrics", self._env) is None:
            return None
        argv = [
            "powermetrics",
            "--samplers",
            "gpu_power",
            "-i",
            str(POWERMETRICS_WINDOW_MS),
            "-n",
            "1",
        ]
        res = run_cmd(argv, self.timeout_s, self._env)
        return parse_powermetrics_gpu_w(res.stdout) if res.ok else None
