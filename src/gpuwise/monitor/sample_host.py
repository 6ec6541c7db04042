"""The host through psutil: CPU use, RAM, disk throughput since the previous reading."""

from __future__ import annotations

import time
from typing import Any

from gpuwise.monitor.model import HostReading


class HostSource:
    """Host readings; the first CPU and disk figures need a previous call, made by ``open()``."""

    def __init__(self) -> None:
        self._disk_prev: tuple[float, int, int] | None = None

    def open(self) -> None:
        """Prime psutil's CPU counter and the disk counters."""
        import psutil

        psutil.cpu_percent(interval=None)
        self._disk_prev = self._disk_totals(psutil)

    @staticmethod
    def _disk_totals(psutil: Any) -> tuple[float, int, int] | None:
        try:
            io = psutil.disk_io_counters()
        except (OSError, RuntimeError):
            return None
        if io is None:
            return None
        return time.monotonic(), int(io.read_bytes), int(io.write_bytes)

    def read(self) -> HostReading:
        """CPU %, memory used/total, disk read/write bytes per second."""
        import psutil

        mem = psutil.virtual_memory()
        now = self._disk_totals(psutil)
        read_rate = write_rate = None
        prev = self._disk_prev
        if now is not None and prev is not None and now[0] > prev[0]:
            dt = now[0] - prev[0]
            read_rate = max(0.0, (now[1] - prev[1]) / dt)
            write_rate = max(0.0, (now[2] - prev[2]) / dt)
        self._disk_prev = now
        return HostReading(
            cpu_percent=float(psutil.cpu_percent(interval=None)),
            cpu_count=psutil.cpu_count(),
            memory_used_bytes=int(mem.total - mem.available),
            memory_total_bytes=int(mem.total),
            disk_read_bytes_per_s=read_rate,
            disk_write_bytes_per_s=write_rate,
        )
