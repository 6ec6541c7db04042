"""`nvcc --version` output: the CUDA toolkit release (pure)."""

from __future__ import annotations

import re

_RELEASE = re.compile(r"release (\d+\.\d+)(?:, V(\d+\.\d+\.\d+))?")


def parse_nvcc_version(text: str) -> str:
    """The "release X.Y" of `nvcc --version` ("" when not found)."""
    m = _RELEASE.search(text)
    return m.group(1) if m else ""
