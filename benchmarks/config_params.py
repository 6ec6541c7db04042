"""Parameter counts read from real config.json files against the published numbers.

Prints one row per fixture in tests/fixtures/configs/published.toml (where each number was
read is in that file and in tests/fixtures/README.md), then the median and worst error.

    .venv/bin/python benchmarks/config_params.py
"""

from __future__ import annotations

import statistics
from pathlib import Path

import tomllib

from gpuwise.catalog.local import read_local_model

CONFIGS = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "configs"


def main() -> None:
    """Print the comparison table and its summary."""
    entries = tomllib.loads((CONFIGS / "published.toml").read_text(encoding="utf-8"))["model"]
    errors = []
    print(f"{'config':50s} {'gpuwise B':>11s} {'published B':>12s} {'error':>8s}")
    for e in entries:
        m = read_local_model(CONFIGS / e["dir"])
        err = m.params_b * 1e9 / e["params"] - 1
        errors.append(abs(err))
        print(f"{e['dir']:50s} {m.params_b:11.3f} {e['params'] / 1e9:12.3f} {err:+8.3%}")
    print(
        f"\n{len(errors)} configs: median |error| {statistics.median(errors):.3%}, "
        f"worst {max(errors):.3%}, within 1%: {sum(e < 0.01 for e in errors)}/{len(errors)}"
    )


if __name__ == "__main__":
    main()
