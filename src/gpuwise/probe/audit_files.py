"""Modes of credential files and model folders (stat only: nothing is opened or read)."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gpuwise.catalog.schema_audit import CredentialFile
from gpuwise.parse.result import Found, ProbeResult


def probe_files(entries: Sequence[CredentialFile], home: Path, cwd: Path) -> ProbeResult:
    """Path, mode and whether others can enter the folder it is in, for each file that exists."""
    found: list[dict[str, Any]] = []
    unreadable: list[str] = []
    for entry in entries:
        base = home if entry.base == "home" else cwd
        path = base / entry.path
        try:
            st = path.stat()
        except FileNotFoundError:
            continue
        except OSError:
            unreadable.append(str(path))
            continue
        found.append(
            {
                "id": entry.id,
                "path": str(path),
                "mode": stat.S_IMODE(st.st_mode),
                "is_dir": stat.S_ISDIR(st.st_mode),
                "parent_traversable": _others_can_enter(path.parent, base),
            }
        )
    return Found({"files": found, "unreadable": unreadable})


def _others_can_enter(folder: Path, base: Path) -> bool:
    """Whether a user who is neither owner nor in the group can reach `folder`: o+x on it and on
    every folder up to and including `base` (the home or work folder; the system folders above
    it, such as /home, are taken as open, as they normally are)."""
    chain = [folder, *folder.parents]
    for part in chain:
        try:
            mode = os.stat(part).st_mode
        except OSError:
            return False
        if not mode & stat.S_IXOTH:
            return False
        if part == base or part == Path(part.anchor):
            break
    return True
