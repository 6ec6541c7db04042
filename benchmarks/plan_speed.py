"""Wall time of the planner's whole search, on the built-in catalog and on 10× the offers.

Prints the median of several in-process runs of make_plan (catalog already loaded, as after
the CLI's start-up) and the command's own median wall time in fresh processes, beside the bare
import of its libraries. `--start-up` prints only the latter two (what issue 26 measures).
"""

from __future__ import annotations

import datetime as dt
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gpuwise.advise.plan import _make_plan, make_plan
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
    if "--start-up" not in sys.argv:
        search()
    libraries, plan = side_by_side()
    print(f"import typer, rich, pydantic, yaml (fresh process, median of 7): {libraries:.3f} s")
    print(f"gpuwise plan --example (fresh process, median of 7): {plan:.3f} s")
    print(f"ratio: {plan / libraries:.2f} × the libraries' import time (target < 3×)")


def search() -> None:
    """The in-process search on the built-in catalog and on 10× its offers."""
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
        # the search itself, not make_plan's memo of its last plans (a repeat is a memo hit)
        one = median_seconds(lambda s=s: _make_plan(cat, s, today, None, True, False))
        ten = median_seconds(lambda s=s: _make_plan(many, s, today, None, True, False), runs=3)
        print(f"{name:26} {n:10} {one:7.3f} {ten:7.3f}")


def _wall(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, capture_output=True, check=True, env=env)
    return time.perf_counter() - start


def bench_env(cache: Path) -> dict[str, str]:
    """The environment of a user's install, for this tree's code: bytecode kept (an installed
    package has its .pyc; some shells set PYTHONDONTWRITEBYTECODE, which recompiles every module
    each run), and a cache folder of its own. The default user cache is shared by every
    checkout on this machine; each writes its own catalog and message caches and evicts the
    others', so a run there may rebuild them (0.1-0.5 s) instead of timing the command."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["XDG_CACHE_HOME"] = str(cache)  # platformdirs' cache folder: the user's code path
    env.pop("GPUWISE_CACHE_DIR", None)
    src = str(Path(__file__).resolve().parent.parent / "src")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    return env


def side_by_side(runs: int = 7) -> tuple[float, float]:
    """Medians of the libraries' bare import and of `plan --example`, run alternately in fresh
    processes so both see the same machine load (this VM's speed swings by a third), after one
    untimed run of each that writes the caches and bytecode."""
    imports = [sys.executable, "-c", "import typer, rich, pydantic, yaml"]
    plan_cmd = [str(Path(sys.executable).parent / "gpuwise"), "plan", "--example"]
    libs, plans = [], []
    with tempfile.TemporaryDirectory(prefix="gpuwise-bench-") as cache:
        env = bench_env(Path(cache))
        _wall(imports, env)
        _wall(plan_cmd, env)
        for _ in range(runs):
            libs.append(_wall(imports, env))
            plans.append(_wall(plan_cmd, env))
    return statistics.median(libs), statistics.median(plans)


if __name__ == "__main__":
    main()
