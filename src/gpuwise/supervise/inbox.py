"""Signals gpuwise receives while it supervises, queued for the main loop.

A handler only appends the signal number; the loop drains the queue at its own pace and
decides (forward to the command's group, treat SIGTERM as the platform's notice, a second
Ctrl-C kills). Handlers are installed only on the main thread, and the old ones come back.
"""

from __future__ import annotations

import signal
import threading
from collections import deque
from types import FrameType
from typing import Any

FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2)


class SignalInbox:
    """Signals received and not yet handled, oldest first."""

    def __init__(self) -> None:
        self.pending: deque[int] = deque()
        self._old_handlers: dict[int, Any] = {}

    def install(self) -> None:
        """Catch the forwarded signals (main thread only: elsewhere Python refuses)."""
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in FORWARDED:
            self._old_handlers[sig] = signal.signal(sig, self._on_signal)

    def restore(self) -> None:
        """Put the previous handlers back."""
        for sig, old in self._old_handlers.items():
            signal.signal(sig, old)
        self._old_handlers.clear()

    def _on_signal(self, signum: int, _frame: FrameType | None) -> None:
        self.pending.append(signum)

    def drain(self) -> list[int]:
        """Every signal received since the last call."""
        out = []
        while self.pending:
            out.append(self.pending.popleft())
        return out
