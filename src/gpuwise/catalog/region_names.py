"""How a region is named and matched, shared by the plan (advise/regions.py) and the offer
listing (prices/offer_query.py), so `plan` and `offers --region` take the same names."""

from __future__ import annotations

import functools

from gpuwise.catalog.names import normalize


def region_key(name: str) -> str:
    """A region name compared without case, spaces or dashes; a name of Chinese characters
    as written (the catalog's `normalize` keeps ASCII only, so every Chinese name read as ''
    and `region: 日本` or `英国` matched China's alias first)."""
    return normalize(name) or name.strip().lower()


def _code_matches(pattern: str, code: str) -> bool:
    p, c = pattern.lower(), code.lower()
    return c.startswith(p[:-1]) if p.endswith("*") else c == p


@functools.lru_cache(maxsize=4096)
def in_codes(codes: tuple[str, ...], code: str) -> bool:
    """Whether a cloud region or country code matches one of a region's codes (a trailing *
    matches a prefix). Cached: a refreshed price feed asks about the same few codes for
    thousands of offers."""
    return any(_code_matches(p, code) for p in codes)
