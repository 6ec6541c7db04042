"""Scan a checkpoint directory into :class:`EntryScan` rows for the pure tracker.

Only the top level is listed; each candidate directory is walked for its total size, newest
change time, a marker file and files still being written. Anything that vanishes or cannot be
read mid-scan is skipped (a trainer deleting old checkpoints while we look is normal).
"""

from __future__ import annotations

import os
from pathlib import Path

from gpuwise.preempt.checkpoints import EntryScan, is_candidate, is_partial_name


def scan_dir(folder: Path, pattern: str, marker: str | None) -> list[EntryScan]:
    """The candidate checkpoints in `folder` as they are now (empty when it cannot be read)."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    out = []
    for entry in entries:
        if not is_candidate(entry.name, pattern):
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                out.append(_scan_tree(entry.path, entry.name, marker))
            elif entry.is_file(follow_symlinks=False):
                st = entry.stat(follow_symlinks=False)
                out.append(EntryScan(entry.name, st.st_size, st.st_mtime_ns, is_dir=False))
        except OSError:
            continue
    return out


def _scan_tree(path: str, name: str, marker: str | None) -> EntryScan:
    size = 0
    newest = os.stat(path).st_mtime_ns
    has_marker = has_partial = False
    for root, dirs, files in os.walk(path):
        for d in dirs:
            has_partial = has_partial or is_partial_name(d)
        for f in files:
            if is_partial_name(f):
                has_partial = True
            if marker is not None and f == marker and root == path:
                has_marker = True
            try:
                st = os.stat(os.path.join(root, f), follow_symlinks=False)
            except OSError:
                continue
            size += st.st_size
            newest = max(newest, st.st_mtime_ns)
    return EntryScan(name, size, newest, has_marker, has_partial, is_dir=True)
