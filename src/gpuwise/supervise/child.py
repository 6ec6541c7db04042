"""The supervised command: started in a process group of its own, signalled as a group, and
stopped so that nothing it started outlives it.

The command runs in a new session (`start_new_session`), so a signal sent to its group reaches
every process it started (torchrun and its workers, a shell and its pipeline), and a Ctrl-C in
the terminal reaches gpuwise only, which forwards it. When gpuwise runs as PID 1 in a container
it also reaps orphaned zombies, the job of an init process.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

_TICK_S = 0.05  # how often a stop checks whether the group is gone


@dataclass
class Child:
    """A running command and its process group."""

    proc: subprocess.Popen[bytes]
    killed: bool = False  # set when a stop had to send SIGKILL (the command ignored the signal)

    @property
    def pid(self) -> int:
        """The command's process id (also its process group id)."""
        return self.proc.pid

    def poll(self) -> int | None:
        """Its exit status as a shell reports it (128+N when killed by signal N), or None."""
        reap_orphans(self.pid)
        code = self.proc.poll()
        return None if code is None else exit_status(code)

    def signal_group(self, sig: int) -> bool:
        """Send `sig` to every process of the group; False when none is left."""
        try:
            os.killpg(self.pid, sig)
        except (ProcessLookupError, PermissionError):
            return False
        return True

    def group_alive(self) -> bool:
        """Whether a live (non-zombie) process of the group is still there.

        Zombies do not count: an orphaned grandchild killed with the group may wait for an init
        process that does not reap (a shell as PID 1 in a container), and is harmless.
        """
        self.proc.poll()
        reap_orphans(self.pid)
        try:
            os.killpg(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        from gpuwise.monitor.proctree import group_members  # psutil: only when asked

        return bool(group_members(self.pid))

    def stop(self, term_sig: int, grace_s: float) -> int:
        """End the whole group: `term_sig`, SIGKILL after `grace_s`; returns the exit status.

        `killed` tells afterwards whether SIGKILL was needed: a report must not call a command
        that had to be killed "stopped cleanly".
        """
        if self.group_alive():
            self.signal_group(term_sig)
            end = time.monotonic() + max(0.0, grace_s)
            while self.group_alive() and time.monotonic() < end:
                time.sleep(_TICK_S)
            if self.group_alive():
                self.killed = True
                self.signal_group(signal.SIGKILL)
                while self.group_alive() and time.monotonic() < end + grace_s + 1:
                    time.sleep(_TICK_S)
        code = self.proc.wait()
        return exit_status(code)

    def wait_exit(self, until_monotonic: float) -> int | None:
        """Wait for the command itself to exit, until a monotonic time; its status or None."""
        while time.monotonic() < until_monotonic:
            code = self.poll()
            if code is not None:
                return code
            time.sleep(_TICK_S)
        return self.poll()


def exit_status(returncode: int) -> int:
    """Popen's code (negative for a signal) as a shell would report it."""
    return 128 - returncode if returncode < 0 else returncode


def spawn(argv: Sequence[str], env: Mapping[str, str]) -> Child:
    """Start `argv` in a new session, inheriting stdin/stdout/stderr (training logs stay live).

    Raises FileNotFoundError / PermissionError / OSError for a command that cannot start.
    """
    proc = subprocess.Popen(list(argv), env=dict(env), start_new_session=True)
    return Child(proc)


def run_hook(command: str, env: Mapping[str, str], timeout_s: float) -> int | None:
    """Run `--on-notice` through the shell with a timeout; its exit status, None if it timed out."""
    try:
        proc = subprocess.Popen(command, shell=True, env=dict(env), start_new_session=True)
    except OSError:
        return 127
    hook = Child(proc)
    try:
        return exit_status(proc.wait(timeout=max(0.05, timeout_s)))
    except subprocess.TimeoutExpired:
        hook.stop(signal.SIGTERM, 0.5)
        return None


def reap_orphans(keep_pid: int) -> None:
    """As PID 1 only: collect exited orphans so they do not pile up as zombies.

    Our own child is left for Popen to collect (reaping it here would lose its exit status).
    """
    if os.getpid() == 1:
        _reap_others(keep_pid)


def _reap_others(keep_pid: int) -> None:
    """Reap every exited child except `keep_pid` (peeked with WNOWAIT first, then collected)."""
    with contextlib.suppress(ChildProcessError, OSError):
        while True:
            info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            if info is None or info.si_pid == keep_pid or info.si_pid == 0:
                return
            os.waitpid(info.si_pid, 0)
