"""Run the user's command for `record`: its exit status passed through, its whole process group
stopped when gpuwise is asked to stop.

The command starts in a session (and process group) of its own, as under `supervise`. Every
signal gpuwise gets — SIGINT and SIGQUIT from the terminal, SIGTERM from `kill`, Docker,
Kubernetes or Slurm, SIGHUP, SIGUSR1/2 — goes to that whole group, so the workers the command
forked (DataLoader workers, a spawned server) get it too; the terminal itself no longer reaches
the group, so nothing is delivered twice. Forwarding to the command's PID alone left its own
children running after gpuwise exited, holding GPU memory (newcomer review, `sig-record-term`).

After a stop signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT), once the command has exited, whatever is
left of its group is sent SIGTERM and, after :data:`STOP_GRACE_S`, SIGKILL; a second stop signal
kills the group at once. A command that ends on its own may leave processes behind on purpose
(a server it started in the background): those are left alone. The exit status follows the
shell's rule: the command's code, or 128 + N when signal N ended it.

Its own session means the command has no controlling terminal: reading the terminal through
stdin still works, opening /dev/tty does not, and Ctrl-Z suspends gpuwise only.

This is the one module of the monitor that uses `subprocess` directly (ruff allows it here);
vendor tools go through :func:`gpuwise.probe.run.run_cmd`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterator, Sequence
from types import FrameType

FORWARDED = tuple(
    getattr(signal, name)
    for name in ("SIGTERM", "SIGHUP", "SIGUSR1", "SIGUSR2", "SIGINT", "SIGQUIT")
    if hasattr(signal, name)
)
STOPPING = tuple(
    getattr(signal, n) for n in ("SIGTERM", "SIGHUP", "SIGINT", "SIGQUIT") if hasattr(signal, n)
)
STOP_GRACE_S = 5.0
"""Seconds the leftovers of a stopped command get between SIGTERM and SIGKILL: enough for a
DataLoader worker or an inference server to exit, short enough for Docker's 10 s stop timeout."""
_TICK_S = 0.05


def exit_status(returncode: int) -> int:
    """Shell-style status: the code itself, or 128 + N for death by signal N."""
    return returncode if returncode >= 0 else 128 - returncode


class Child:
    """The running command (stdin, stdout and stderr are the user's) and its process group."""

    def __init__(self, argv: Sequence[str]) -> None:
        self.argv = list(argv)
        # raises FileNotFoundError, PermissionError
        self._proc = subprocess.Popen(self.argv, start_new_session=True)
        self.pid = self._proc.pid  # also the process group id
        self.signals_forwarded: list[int] = []
        self.stop_asked = 0  # how many stop signals gpuwise got

    def wait(self, timeout_s: float | None) -> int | None:
        """The raw return code once the command has exited, else None after `timeout_s`."""
        try:
            return self._proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return None

    def send(self, signum: int) -> None:
        """Deliver `signum` to the command's whole process group (ignored once it is gone)."""
        if signum in STOPPING:
            self.stop_asked += 1
            if self.stop_asked > 1 and signum != signal.SIGQUIT:
                signum = signal.SIGKILL  # asked twice: stop now, as a second Ctrl-C would
        self._signal_group(signum)
        self.signals_forwarded.append(signum)

    def _signal_group(self, signum: int) -> bool:
        try:
            os.killpg(self.pid, signum)
        except (ProcessLookupError, PermissionError):
            return False
        return True

    def group_alive(self) -> bool:
        """Whether a live (non-zombie) process of the command's group is left."""
        from gpuwise.monitor.proctree import group_members  # psutil: only when asked

        self._proc.poll()
        return bool(group_members(self.pid))

    def finish(self, grace_s: float = STOP_GRACE_S) -> None:
        """After the command exited: when gpuwise was asked to stop, end what is left of its
        group (SIGTERM, then SIGKILL after `grace_s`) so nothing outlives gpuwise."""
        if not self.stop_asked or not self.group_alive():
            return
        self._signal_group(signal.SIGTERM)
        end = time.monotonic() + grace_s
        while self.group_alive() and time.monotonic() < end:
            time.sleep(_TICK_S)
        if self.group_alive():
            self._signal_group(signal.SIGKILL)
            end = time.monotonic() + 2.0
            while self.group_alive() and time.monotonic() < end:
                time.sleep(_TICK_S)


@contextlib.contextmanager
def forwarding(child: Child) -> Iterator[None]:
    """Forward signals sent to gpuwise to `child`'s group while the block runs, then restore
    the handlers."""

    def handler(signum: int, _frame: FrameType | None) -> None:
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
