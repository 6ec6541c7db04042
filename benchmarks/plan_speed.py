"""Wall time of the planner's whole search, on the built-in catalog and on 10× the offers.

Prints the median of several in-process runs of make_plan (catalog already loaded, as after
the CLI's start-up) and the command's own median wall time in fresh processes.
"""

from __future__ import annotations

import datetime as dt
import statistics
import subprocess
import sys
import time
from pathlib import Path

from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import load_scenario
from gpuwise.catalog import load_catalog

EXAMPLE = Path(__file__).parent.parent / "examples" / "qlora-7b-china.yaml"
SERVE = {"name": "serve", "workload": {"kind": "serve", "model": "qwen2.5:7b"}, "region": "any"}


def median_seconds(fn, runs: int = 7) -> float:  # type: ignore[no-untyped-def]
    """Median wall seconds of `fn()` over `runs` calls after one warm-up."""
    fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    from gpuwise.advise.scenario import parse_scenario

    cat = load_catalog()
    today = dt.date.today()
    scenarios = {
        "example (train, cn)": load_scenario(EXAMPLE),
        "serve 7B (any region)": parse_scenario(SERVE, "bench"),
    }
    many = cat.with_part(
        "offers",
        tuple(
            o.model_copy(update={"instance": f"{o.instance}#{i}"})
            for i in range(10)
            for o in cat.offers
        ),
    )
    print(f"offers: {len(cat.offers)} built-in, {len(many.offers)} in the 10× catalog")
    print(f"{'scenario':26} {'candidates':>10} {'1× s':>7} {'10× s':>7}")
    for name, s in scenarios.items():
        plan = make_plan(cat, s, today)
        n = len(plan.options) + len(plan.infeasible)
        one = median_seconds(lambda s=s: make_plan(cat, s, today))
        ten = median_seconds(lambda s=s: make_plan(many, s, today), runs=3)
        print(f"{name:26} {n:10} {one:7.3f} {ten:7.3f}")
    libraries, plan = side_by_side()
    print(f"import typer, rich, pydantic, yaml (fresh process, median of 7): {libraries:.3f} s")
    print(f"gpuwise plan --example (fresh process, median of 7): {plan:.3f} s")
    print(f"ratio: {plan / libraries:.2f} × the libraries' import time (target < 3×)")


def _wall(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, capture_output=True, check=True)
    return time.perf_counter() - start


def side_by_side(runs: int = 7) -> tuple[float, float]:
    """Medians of the libraries' bare import and of `plan --example`, run alternately in fresh
    processes so both see the same machine load (this VM's speed swings by a third)."""
    gw = Path(sys.executable).parent / "gpuwise"
    imports = [sys.executable, "-c", "import typer, rich, pydantic, yaml"]
    libs, plans = [], []
    for _ in range(runs):
        libs.append(_wall(imports))
        plans.append(_wall([str(gw), "plan", "--example"]))
    return statistics.median(libs), statistics.median(plans)


if __name__ == "__main__":
    main()
