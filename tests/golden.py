"""Golden files: expected output kept under version control, compared byte for byte.

A missing golden file is a failure, never a silent write: a test that wrote its own expectation
and then compared the output with it would pass whatever the output was (review 3). After a
deliberate change, regenerate with ``GPUWISE_UPDATE_GOLDEN=1 pytest …`` and review the diff
before committing it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

UPDATE_ENV = "GPUWISE_UPDATE_GOLDEN"


def updating() -> bool:
    """Whether this run rewrites golden files (GPUWISE_UPDATE_GOLDEN=1)."""
    return os.environ.get(UPDATE_ENV) == "1"


def check_golden(path: Path, text: str) -> None:
    """`text` equals the golden file at `path`; with GPUWISE_UPDATE_GOLDEN=1 the file is
    rewritten first. A missing file fails and names the variable that creates it."""
    if updating():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if not path.exists():
        pytest.fail(f"golden file {path} is missing: create it with {UPDATE_ENV}=1 and review it")
    assert text == path.read_text(encoding="utf-8"), f"output differs from {path}"
