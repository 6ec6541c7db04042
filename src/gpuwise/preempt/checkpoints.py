"""Which checkpoints in a directory are complete, and since when (pure state over scans).

The rule (docs/supervise.md, "What counts as a complete checkpoint"):

- Candidates are the top-level entries of `--checkpoint-dir` whose name matches `--pattern`
  (a glob, e.g. `checkpoint-*`), not hidden, and not named like a file still being written
  (`*.tmp`, `*.partial`, `*.incomplete`, `*.lock`: save-then-rename writers leave those).
- An entry holding such a partial file anywhere inside it is not complete.
- With `--marker NAME`, a directory entry is complete once it holds a file `NAME` (trainers
  that write a marker last, e.g. HF's `trainer_state.json`, make this exact); a single-file
  entry has nowhere to hold one and is judged by the stability rule below.
- Without a marker, an entry is complete when its total size and newest change time are the
  same in `stable_polls` consecutive scans (catalog: supervise_setting.stable_polls).

Entries present when supervision starts were written by an earlier run; they count as complete
at once when nothing marks them partial (no writer is running yet), and are not reported as new.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass, field

PARTIAL_SUFFIXES = (".tmp", ".partial", ".incomplete", ".lock")


@dataclass(frozen=True)
class EntryScan:
    """What one scan saw of one top-level entry."""

    name: str
    size_bytes: int
    newest_mtime_ns: int
    has_marker: bool = False
    has_partial: bool = False
    is_dir: bool = True

    @property
    def signature(self) -> tuple[int, int]:
        """Changes whenever the entry's content changes (size or newest change time)."""
        return (self.size_bytes, self.newest_mtime_ns)


@dataclass(frozen=True)
class Completed:
    """A checkpoint that became complete, with how long its writing took when it was watched."""

    name: str
    completed_t: float
    newest_mtime_ns: int
    save_s: float | None = None
    preexisting: bool = False


def is_candidate(name: str, pattern: str) -> bool:
    """Whether a top-level name can be a checkpoint (pattern, not hidden, not a partial name)."""
    if name.startswith(".") or name.endswith(PARTIAL_SUFFIXES):
        return False
    return fnmatch.fnmatchcase(name, pattern)


def is_partial_name(name: str) -> bool:
    """Whether a file name says it is still being written."""
    return name.endswith(PARTIAL_SUFFIXES)


@dataclass
class _Seen:
    signature: tuple[int, int]
    same_count: int
    first_seen_t: float
    reported: bool


@dataclass
class CheckpointTracker:
    """Feed it scans; it says which checkpoints just became complete (each content once)."""

    marker_required: bool = False
    stable_polls: int = 2
    _seen: dict[str, _Seen] = field(default_factory=dict)
    _complete: dict[str, Completed] = field(default_factory=dict)

    def prime(self, scans: Iterable[EntryScan], t: float) -> list[Completed]:
        """Record what exists before the job starts; complete ones are returned, not 'new'."""
        out = []
        for s in scans:
            done = self._done_at_rest(s)
            self._seen[s.name] = _Seen(s.signature, self.stable_polls, t, done)
            if done:
                c = Completed(s.name, t, s.newest_mtime_ns, None, preexisting=True)
                self._complete[s.name] = c
                out.append(c)
        return out

    def feed(self, scans: Iterable[EntryScan], t: float) -> list[Completed]:
        """One scan at time `t`; returns the checkpoints that became complete in it."""
        new: list[Completed] = []
        names = set()
        for s in scans:
            names.add(s.name)
            seen = self._seen.get(s.name)
            if seen is None or seen.signature != s.signature:
                first = t if seen is None or seen.reported else seen.first_seen_t
                seen = _Seen(s.signature, 1, first, False)
                self._seen[s.name] = seen
            else:
                seen.same_count += 1
            if not seen.reported and self._done(s, seen):
                seen.reported = True
                c = Completed(s.name, t, s.newest_mtime_ns, max(0.0, t - seen.first_seen_t))
                self._complete[s.name] = c
                new.append(c)
        for gone in set(self._seen) - names:
            del self._seen[gone]
            self._complete.pop(gone, None)
        return sorted(new, key=lambda c: c.newest_mtime_ns)

    def _done(self, s: EntryScan, seen: _Seen) -> bool:
        if s.has_partial:
            return False
        if self.marker_required and s.is_dir:
            return s.has_marker
        return seen.same_count >= self.stable_polls

    def _done_at_rest(self, s: EntryScan) -> bool:
        return not s.has_partial and (s.has_marker or not (self.marker_required and s.is_dir))

    def in_progress(self) -> bool:
        """Whether some entry is still changing or waiting to be confirmed complete."""
        return any(not s.reported for s in self._seen.values())

    def newest(self) -> Completed | None:
        """The complete checkpoint with the newest content, if any."""
        done = list(self._complete.values())
        return max(done, key=lambda c: (c.newest_mtime_ns, c.completed_t)) if done else None
