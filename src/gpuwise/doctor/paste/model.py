"""What a parser returns: a recognised block of pasted text and the facts read from it."""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Block:
    """One recognised piece of output: its kind, where it is (character offsets), its facts."""

    kind: str
    start: int
    end: int
    facts: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Text:
    """A pasted file (or stdin) with a fast offset → line-number map."""

    name: str
    text: str
    newlines: tuple[int, ...] = ()

    @classmethod
    def of(cls, name: str, text: str) -> Text:
        """Index the line starts once (a 1 MB paste has ~20 000 lines)."""
        return cls(name, text, tuple(m.start() for m in re.finditer("\n", text)))

    def line(self, offset: int) -> int:
        """1-based line number of a character offset."""
        return bisect.bisect_left(self.newlines, offset) + 1


# A paste is read in time linear in its size, whatever it holds: each finder reads at most
# MAX_HITS anchors of a kind (repeats add no facts), skips anchors inside what it already read,
# and bounds what one pattern may scan on a line.
MAX_HITS = 40


def hits(rx: re.Pattern[str], text: str, pos: int = 0) -> Iterator[re.Match[str]]:
    """The first MAX_HITS matches of `rx` in `text` from `pos`."""
    return itertools.islice(rx.finditer(text, pos), MAX_HITS)


def fresh_hits(rx: re.Pattern[str], text: str, out: list[Block]) -> Iterator[re.Match[str]]:
    """Like :func:`hits`, skipping anchors that fall inside a block already found (in `out`):
    a table's own header repeated inside it, or one of 10 000 pasted copies."""
    for m in hits(rx, text):
        if out and m.start() < out[-1].end:
            continue
        yield m


def line_span(text: str, pos: int) -> tuple[int, int]:
    """(start, end) offsets of the line containing `pos`."""
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return start, len(text) if end < 0 else end
