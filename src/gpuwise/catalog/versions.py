"""Version strings as comparable tuples ("570.124.06" → (570, 124, 6))."""

from __future__ import annotations

import re

Version = tuple[int, ...]


def parse(text: str | None) -> Version | None:
    """The leading dotted number of `text`, or None ("2.7.1+cu128" → (2, 7, 1))."""
    if not text:
        return None
    m = re.match(r"\s*v?(\d+(?:\.\d+)*)", str(text))
    return tuple(int(p) for p in m.group(1).split(".")) if m else None


def at_least(have: str | None, need: str | None) -> bool | None:
    """have ≥ need, or None when either is unknown. Missing parts count as 0."""
    a, b = parse(have), parse(need)
    if a is None or b is None:
        return None
    width = max(len(a), len(b))
    return a + (0,) * (width - len(a)) >= b + (0,) * (width - len(b))


def major_minor(text: str | None) -> str:
    """ "12.8.1" → "12.8" ("" when unknown)."""
    v = parse(text)
    return f"{v[0]}.{v[1]}" if v and len(v) >= 2 else (str(v[0]) if v else "")


def wheel_tag(cuda: str) -> str:
    """ "12.8" → "cu128" (the PyTorch wheel index name)."""
    v = parse(cuda)
    return f"cu{v[0]}{v[1]}" if v and len(v) >= 2 else ""
