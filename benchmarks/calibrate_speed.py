"""Fit the speed model's efficiencies to the published cases and write data/speed_fitted.toml.

Run after adding or correcting a case in tests/data/speed_cases.toml:

    python benchmarks/calibrate_speed.py          # rewrite the file
    python benchmarks/calibrate_speed.py --check  # exit 1 when the file is not the fit's output

The fit is estimate/speed_fit.py; tests/estimate/test_speed_fit.py checks the shipped file is
exactly its output, so no efficiency is hand-tuned.
"""

from __future__ import annotations

import sys
from pathlib import Path

import tomllib

from gpuwise.catalog import load_catalog
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.speed_cases import prepare_case
from gpuwise.estimate.speed_constants import SpeedConstants
from gpuwise.estimate.speed_fit import fit, to_toml

ROOT = Path(__file__).parent.parent
CASES = ROOT / "tests" / "data" / "speed_cases.toml"
OUT = ROOT / "src" / "gpuwise" / "catalog" / "data" / "speed_fitted.toml"


def fitted_text() -> str:
    """What the fit writes for the current cases and hand-written constants."""
    cat = load_catalog(use_cache=False)
    mc, sc = MemoryConstants.from_catalog(cat), SpeedConstants.from_catalog(cat)
    cases = tomllib.loads(CASES.read_text(encoding="utf-8"))["case"]
    prepared = [prepare_case(cat, mc, c) for c in cases if "excluded" not in c]
    return to_toml(fit(prepared, sc))


def main() -> int:
    text = fitted_text()
    if "--check" in sys.argv:
        same = OUT.exists() and OUT.read_text(encoding="utf-8") == text
        print("speed_fitted.toml is the fit's output" if same else "speed_fitted.toml is stale")
        return 0 if same else 1
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
