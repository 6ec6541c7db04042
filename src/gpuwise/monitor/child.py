"""Run the user's command for `record`: its exit status passed through, signals forwarded.

The command stays in gpuwise's process group, so a terminal's Ctrl-C or Ctrl-\\ reaches it (and
the workers it forks) directly, as it would without gpuwise; gpuwise then only keeps recording
until the command exits. Signals sent to gpuwise itself — SIGTERM from `kill`, Docker, Kubernetes
or Slurm, SIGHUP, SIGUSR1/2 — are forwarded to the command. SIGINT and SIGQUIT are forwarded too
when they cannot have come from a terminal (gpuwise is not in the terminal's foreground process
group), so nothing is delivered twice. The exit status follows the shell's rule: the command's
code, or 128 + N when signal N ended it.

This is the one module of the monitor that uses `subprocess` directly (ruff allows it here);
vendor tools go through :func:`gpuwise.probe.run.run_cmd`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence
from types import FrameType

FORWARDED = tuple(
    getattr(signal, name)
    for name in ("SIGTERM", "SIGHUP", "SIGUSR1", "SIGUSR2", "SIGINT", "SIGQUIT")
    if hasattr(signal, name)
)
TERMINAL_SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGQUIT") if hasattr(signal, n))


def exit_status(returncode: int) -> int:
    """Shell-style status: the code itself, or 128 + N for death by signal N."""
    return returncode if returncode >= 0 else 128 - returncode


def in_terminal_foreground() -> bool:
    """Whether a terminal's Ctrl-C would reach this process group (then the child got it too)."""
    for stream in (sys.stdin, sys.stdout, sys.stderr):
        try:
            fd = stream.fileno()
            if os.isatty(fd):
                return os.tcgetpgrp(fd) == os.getpgrp()
        except (AttributeError, OSError, ValueError):
            continue
    return False


class Child:
    """The running command (stdin, stdout and stderr are the user's)."""

    def __init__(self, argv: Sequence[str]) -> None:
        self.argv = list(argv)
        self._proc = subprocess.Popen(self.argv)  # raises FileNotFoundError, PermissionError
        self.pid = self._proc.pid
        self.signals_forwarded: list[int] = []

    def wait(self, timeout_s: float | None) -> int | None:
        """The raw return code once the command has exited, else None after `timeout_s`."""
        try:
            return self._proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return None

    def send(self, signum: int) -> None:
        """Deliver `signum` to the command (ignored when it has already exited)."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signum)
        self.signals_forwarded.append(signum)


@contextlib.contextmanager
def forwarding(child: Child) -> Iterator[None]:
    """Forward signals sent to gpuwise to `child` while the block runs, then restore handlers."""
    from_terminal = in_terminal_foreground()

    def handler(signum: int, _frame: FrameType | None) -> None:
        if signum in TERMINAL_SIGNALS and from_terminal:
            return  # the terminal sent it to the child's process group already
        child.send(signum)

    previous = {}
    for signum in FORWARDED:
        with contextlib.suppress(OSError, ValueError):  # ValueError: not the main thread
            previous[signum] = signal.signal(signum, handler)
    try:
        yield
    finally:
        for signum, old in previous.items():
            with contextlib.suppress(OSError, ValueError):
                signal.signal(signum, old)
