"""The one subprocess wrapper: a timeout, captured output, and no exceptions.

Children run in their own process group so that a hung tool (and anything it started) can be
killed as a whole. Every live child is registered, so the collector can kill what is left when
the overall deadline passes: a doctor run never outlives its ``--timeout``. When the run is
interrupted (Ctrl-C, SIGTERM) :func:`shutdown` kills every child and refuses new ones, so no
probe child outlives gpuwise — not even one a probe thread starts a moment later.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

_OUTPUT_LIMIT = 4 * 1024 * 1024  # bytes kept from a child's stdout (nvidia-smi -q -x is ~100 KiB)
_live: set[subprocess.Popen[bytes]] = set()
_lock = threading.Lock()
_closed = threading.Event()  # set by shutdown(): no new children may start
_spawned = threading.Condition(_lock)  # notified when a Popen call in flight has returned
_spawning = 0  # Popen calls in flight (their child may exist before Popen returns)


@dataclass(frozen=True)
class CmdResult:
    """What happened when a command ran.

    ``found`` is False when the program does not exist; ``timed_out`` when it was killed at its
    timeout; ``error`` holds an OSError's text (permission denied, exec format error).
    """

    argv: tuple[str, ...]
    found: bool
    rc: int | None = None
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    error: str = ""
    elapsed_s: float = 0.0

    @property
    def ok(self) -> bool:
        """Ran, finished in time and exited 0."""
        return self.found and not self.timed_out and not self.error and self.rc == 0

    def first_line(self) -> str:
        """The first non-empty line of stderr, else of stdout (for a one-line failure detail)."""
        for text in (self.stderr, self.stdout):
            for line in text.splitlines():
                if line.strip():
                    return line.strip()[:300]
        return ""


def search_path(env: Mapping[str, str] | None = None) -> str:
    """The PATH to search (of `env` when given), with empty and relative entries dropped.

    POSIX reads an empty PATH entry as the current directory; a tool found there is not "on
    PATH" in any sense a user means, so it is never looked at (an empty PATH finds nothing).
    """
    raw = (env if env is not None else os.environ).get("PATH", os.defpath)
    return os.pathsep.join(p for p in raw.split(os.pathsep) if p and os.path.isabs(p))


def which(name: str, env: Mapping[str, str] | None = None) -> str | None:
    """Full path of `name` on PATH (the PATH of `env` when given), or None."""
    path = search_path(env)
    return shutil.which(name, path=path) if path else None


def run_cmd(
    argv: Sequence[str],
    timeout_s: float,
    env: Mapping[str, str] | None = None,
) -> CmdResult:
    """Run `argv` with a timeout; never raises.

    The program is looked up on the PATH of `env` (or of this process). Output is decoded as
    UTF-8 with replacement, so a tool printing binary garbage still yields text.
    """
    args = tuple(argv)
    if not args:
        return CmdResult(args, found=False, error="empty command")
    exe = args[0] if os.sep in args[0] else which(args[0], env)
    if exe is None:
        return CmdResult(args, found=False)
    global _spawning
    with _lock:
        if _closed.is_set():
            return CmdResult(args, found=True, error="interrupted")
        _spawning += 1
    start = time.monotonic()
    proc: subprocess.Popen[bytes] | None = None
    try:
        proc = subprocess.Popen(
            (exe, *args[1:]),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(env) if env is not None else None,
            start_new_session=True,
        )
    except FileNotFoundError:
        return CmdResult(args, found=False)
    except OSError as exc:
        return CmdResult(args, found=True, error=str(exc))
    finally:
        with _lock:
            _spawning -= 1
            if proc is not None:
                _live.add(proc)
            late = _closed.is_set()  # shutdown() ran while this child was being started
            _spawned.notify_all()
    if late:
        _kill(proc)
    return _wait(proc, args, max(0.05, timeout_s), start)


def _wait(
    proc: subprocess.Popen[bytes], args: tuple[str, ...], timeout_s: float, start: float
) -> CmdResult:
    timed_out = False
    try:
        out, err = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill(proc)
        out, err = _drain(proc)
    except Exception as exc:  # pragma: no cover - interrupted pipes and the like
        _kill(proc)
        return CmdResult(args, found=True, error=str(exc), elapsed_s=time.monotonic() - start)
    finally:
        with _lock:
            _live.discard(proc)
    return CmdResult(
        args,
        found=True,
        rc=None if timed_out else proc.returncode,
        stdout=_text(out),
        stderr=_text(err),
        timed_out=timed_out,
        elapsed_s=time.monotonic() - start,
    )


def _drain(proc: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
    try:
        return proc.communicate(timeout=1.0)
    except Exception:
        return b"", b""


def _text(data: bytes | None) -> str:
    return (data or b"")[:_OUTPUT_LIMIT].decode("utf-8", errors="replace")


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """Kill the child's whole process group (it was started in a session of its own)."""
    killpg = getattr(os, "killpg", None)  # absent on Windows
    try:
        if killpg is None:
            raise OSError("no process groups")
        killpg(proc.pid, signal.SIGKILL)
    except OSError:
        with contextlib.suppress(OSError):
            proc.kill()


def kill_all() -> int:
    """Kill every child still running (called when the doctor's deadline passes)."""
    with _lock:
        procs = list(_live)
    for proc in procs:
        _kill(proc)
    return len(procs)


def shutdown(grace_s: float = 2.0) -> int:
    """Interrupted: refuse new children from now on and kill every running one.

    A child forked by a Popen call that has not returned yet is not in the registry; waiting
    (briefly) for those calls matters because the interpreter may stop the thread that made
    the call before it could register, or kill, its child.
    """
    with _lock:
        _closed.set()
        _spawned.wait_for(lambda: _spawning == 0, timeout=grace_s)
    return kill_all()


def reopen() -> None:
    """Allow children again (for a second run in the same process, e.g. tests)."""
    _closed.clear()
