"""One sampling loop over every vendor source found on the machine, plus the host.

Usage (also what `bench`/`calibrate` should build on)::

    sampler = Sampler(default_sources())
    sampler.open()            # {'nvidia': 'ok', 'amd': 'missing:not_present', ...}
    sample = sampler.sample() # a Sample: GPUs of every working source, host, statuses
    sampler.close()

A source that fails during one sample (a tool that hangs and is killed, an error) gives no
readings for that sample and its status says why ('timeout', 'failed:…'); the others still
answer. A source whose ``open()`` finds nothing is left out.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Mapping, Sequence
from typing import Protocol

from gpuwise.monitor.model import GpuReading, Sample
from gpuwise.monitor.sample_host import HostSource


class Source(Protocol):
    """What every vendor sampler provides."""

    vendor: str

    def open(self) -> str:
        """'ok', or 'missing:<reason>' / 'failed:<reason>'."""

    def read(self) -> list[GpuReading]:
        """Readings of this vendor's devices (may raise; the sampler catches it)."""

    def close(self) -> None:
        """Free what open() took."""


def default_sources(env: Mapping[str, str] | None = None, xid: bool = True) -> list[Source]:
    """Every vendor this machine might have (each one's open() says whether it does)."""
    from gpuwise.monitor.sample_amd import AmdSource
    from gpuwise.monitor.sample_apple import AppleSource
    from gpuwise.monitor.sample_ascend import AscendSource
    from gpuwise.monitor.sample_nvidia import NvidiaSource

    return [NvidiaSource(xid=xid), AmdSource(env), AscendSource(env), AppleSource(env)]


class Sampler:
    """Open sources, take samples, close them; ``host=False`` skips psutil host readings."""

    def __init__(self, sources: Sequence[Source], host: bool = True) -> None:
        self._all = list(sources)
        self._open: list[Source] = []
        self._host = HostSource() if host else None
        self.statuses: dict[str, str] = {}

    def open(self) -> dict[str, str]:
        """Open every source; returns each vendor's status."""
        for source in self._all:
            try:
                status = source.open()
            except Exception as exc:  # a broken driver binding must not stop the host view
                status = f"failed:{type(exc).__name__}"
            self.statuses[source.vendor] = status
            if status == "ok":
                self._open.append(source)
        if self._host is not None:
            self._host.open()
        return dict(self.statuses)

    @property
    def vendors(self) -> list[str]:
        """Vendors with a working source."""
        return [s.vendor for s in self._open]

    def sample(self) -> Sample:
        """Read every open source and the host now."""
        t = time.time()
        gpus: list[GpuReading] = []
        statuses = dict(self.statuses)
        for source in self._open:
            try:
                gpus.extend(source.read())
                statuses[source.vendor] = "ok"
            except TimeoutError:
                statuses[source.vendor] = "timeout"
            except Exception as exc:
                statuses[source.vendor] = f"failed:{type(exc).__name__}"
        host = self._host.read() if self._host is not None else None
        return Sample(t=t, gpus=tuple(gpus), host=host, sources=statuses)

    def close(self) -> None:
        """Close every open source."""
        for source in self._open:
            with contextlib.suppress(Exception):  # closing is best effort
                source.close()
        self._open = []
