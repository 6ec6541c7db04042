"""Canonical names, aliases and "did you mean" for GPUs and models.

Users type "4090", "RTX 4090", "A100 80G", "a100-80gb" or SkyPilot's `A100-80GB`; all must land
on one id. Names are compared after :func:`normalize`: lower case, vendor words dropped, "80G"
read as "80GB", and every separator removed.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Iterable

_VENDOR_WORDS = re.compile(r"\b(nvidia|geforce|amd|radeon|instinct|intel|huawei|google|apple)\b")


@functools.lru_cache(maxsize=4096)
def normalize(name: str) -> str:
    """Fold a name to the form used for lookup ("NVIDIA A100 80G" → "a10080gb"); remembered,
    as the planner folds the same few names for every candidate."""
    s = name.strip().lower()
    s = _VENDOR_WORDS.sub(" ", s)
    s = re.sub(r"(\d)\s*g\b", r"\1gb", s)
    return re.sub(r"[^a-z0-9.:]", "", s)


def build_index(items: Iterable[tuple[str, Iterable[str]]]) -> tuple[dict[str, str], list[str]]:
    """Map every normalized name to its id; also return names that point at two ids."""
    index: dict[str, str] = {}
    clashes: list[str] = []
    for item_id, names in items:
        for name in names:
            key = normalize(name)
            if not key:
                continue
            if key in index and index[key] != item_id:
                clashes.append(f"{name!r}: {index[key]} / {item_id}")
            index[key] = item_id
    return index, clashes


def suggest(name: str, index: dict[str, str], display: dict[str, str], n: int = 3) -> list[str]:
    """Close matches for an unknown name, as display names, best first."""
    key = normalize(name)
    hits = difflib.get_close_matches(key, list(index), n=n * 3, cutoff=0.5)
    hits += [k for k in index if key and (key in k or k in key) and k not in hits]
    out: list[str] = []
    for hit in hits:
        label = display.get(index[hit], index[hit])
        if label not in out:
            out.append(label)
    return out[:n]
