"""Which processes belong to the recorded command: the root PID and everything it started.

A GPU process is the command's when its parent chain reaches the root PID (the approach of
nvitop's ResourceMetricCollector: walk each PID's parents once, then remember the answer in a
"descendant" and a "not descendant" set). Answers are keyed by (PID, start time) so a reused
PID is looked at again. PIDs from NVML are host PIDs; inside a container without `--pid=host`
they do not exist here (research notes wave2.md §1): :meth:`ProcessTree.classify` says
'unknown' for them and the recorder falls back to device-level attribution.
"""

from __future__ import annotations

import os
from typing import Literal

import psutil

Membership = Literal["member", "other", "unknown"]
MAX_DEPTH = 256


class ProcessTree:
    """The process tree of ``root_pid``: membership by parent chain, totals for the host view."""

    def __init__(self, root_pid: int) -> None:
        self.root_pid = root_pid
        self._yes: set[tuple[int, float]] = set()
        self._no: set[tuple[int, float]] = set()
        self._procs: dict[int, psutil.Process] = {}

    @staticmethod
    def _key(proc: psutil.Process) -> tuple[int, float]:
        return proc.pid, proc.create_time()

    def classify(self, pid: int) -> Membership:
        """'member' when `pid` descends from the root, 'other' when not, 'unknown' when the
        PID is not visible here (another PID namespace, or it already exited)."""
        try:
            proc = psutil.Process(pid)
            chain = [self._key(proc)]
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            return "unknown"
        answer = self._walk(proc, chain)
        (self._yes if answer == "member" else self._no).update(chain)
        return answer

    def _walk(self, proc: psutil.Process, chain: list[tuple[int, float]]) -> Membership:
        for _ in range(MAX_DEPTH):
            key = chain[-1]
            if key in self._yes or proc.pid == self.root_pid:
                return "member"
            if key in self._no or proc.pid <= 1:
                return "other"
            try:
                parent = proc.parent()
                if parent is None:
                    return "other"
                chain.append(self._key(parent))
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                return "other"
            proc = parent
        return "other"

    def members(self) -> list[psutil.Process]:
        """The root and its live descendants (Process objects are reused for CPU %)."""
        try:
            root = self._procs.get(self.root_pid) or psutil.Process(self.root_pid)
            found = [root, *root.children(recursive=True)]
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            return []
        procs = {p.pid: self._procs.get(p.pid, p) for p in found}
        self._procs = procs
        return list(procs.values())

    def totals(self) -> tuple[int, int | None, float | None]:
        """(process count, resident memory in bytes, CPU % summed over the tree)."""
        count, rss, cpu = 0, 0, 0.0
        for proc in self.members():
            try:
                with proc.oneshot():
                    rss += int(proc.memory_info().rss)
                    cpu += float(proc.cpu_percent(interval=None))
                count += 1
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
        return count, (rss if count else None), (cpu if count else None)


def group_members(pgid: int) -> list[int]:
    """Pids of the live (non-zombie) processes in a process group (`record` and `supervise`
    both ask whether anything of the command they started is left)."""
    out = []
    for proc in psutil.process_iter(["status"]):
        try:
            if os.getpgid(proc.pid) == pgid and proc.info["status"] != psutil.STATUS_ZOMBIE:
                out.append(proc.pid)
        except (ProcessLookupError, PermissionError, OSError):
            continue
    return out
