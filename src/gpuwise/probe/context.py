"""What every probe is given: time left, the environment, and where the filesystem root is.

`root` lets tests point the file-reading probes at a fake tree (a made-up /proc, /sys, /dev)
instead of the real machine; `env` is a copy of the environment the probes see and pass to
the commands they run.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

_READ_LIMIT = 1024 * 1024  # bytes read from any one system file


@dataclass(frozen=True)
class ProbeContext:
    """Shared, read-only inputs of one doctor run."""

    deadline: float  # time.monotonic() by which everything must be done
    env: dict[str, str] = field(default_factory=lambda: dict(os.environ))
    root: Path = Path("/")
    python: str = sys.executable
    ollama_url: str | None = None
    home: Path = field(default_factory=Path.home)

    def left(self, cap: float) -> float:
        """Seconds a probe step may take: its own cap, or less when the deadline is nearer."""
        return max(0.05, min(cap, self.deadline - time.monotonic()))

    def path(self, absolute: str) -> Path:
        """An absolute system path, re-rooted under `root` (tests use a fake tree)."""
        return self.root / absolute.lstrip("/")

    def read(self, absolute: str, limit: int = _READ_LIMIT) -> str | None:
        """A system file's text, or None when it is absent or unreadable. Never raises."""
        try:
            with self.path(absolute).open("rb") as fh:
                return fh.read(limit).decode("utf-8", errors="replace")
        except (OSError, ValueError):
            return None

    def exists(self, absolute: str) -> bool:
        """Whether a system path exists (False on any error)."""
        try:
            return self.path(absolute).exists()
        except OSError:
            return False

    def glob(self, absolute_dir: str, pattern: str) -> list[str]:
        """Names in a system directory matching `pattern`, sorted; empty on any error."""
        try:
            return sorted(p.name for p in self.path(absolute_dir).glob(pattern))
        except OSError:
            return []

    def listdir(self, absolute_dir: str) -> Iterator[str]:
        """Entries of a system directory (nothing on error)."""
        try:
            yield from sorted(os.listdir(self.path(absolute_dir)))
        except OSError:
            return
