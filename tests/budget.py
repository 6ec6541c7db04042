"""How many examples the slow property tests draw.

A plan property builds whole plans (seconds each on the 2-core machine the suite is sized
for), so the everyday run draws a few and `GPUWISE_THOROUGH=1` draws many more, e.g. before a
release or after a change to the planner: `GPUWISE_THOROUGH=1 pytest tests/advise`.
"""

from __future__ import annotations

import os

THOROUGH_ENV = "GPUWISE_THOROUGH"


def examples(everyday: int, thorough: int) -> int:
    """`everyday` examples, or `thorough` when GPUWISE_THOROUGH=1."""
    return thorough if os.environ.get(THOROUGH_ENV) == "1" else everyday
