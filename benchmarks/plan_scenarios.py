"""The realistic scenarios of tests/advise/scenarios.yaml: gpuwise's answer beside the expert's.

Prints a Markdown table (scenario, gpuwise's answer, the expert's answer, whether the facts the
scenario pins down hold) and the planner's median search time per scenario, for
benchmarks/README.md. Run: .venv/bin/python benchmarks/plan_scenarios.py
"""

from __future__ import annotations

import datetime as dt
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent.parent))

from tests.advise.test_scenarios import EXPECT, SCENARIOS, scenario_data

from gpuwise.advise.plan import Plan, _make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog

TODAY = dt.date(2026, 12, 2)


def answer(plan: Plan) -> str:
    """The plan's headline in a few words."""
    if not plan.options:
        unchecked = f" ({len(plan.unchecked)} not checked)" if plan.unchecked else ""
        return "no ranked option" + unchecked
    o = plan.options[0]
    c = o.candidate
    what = f"{c.gpu.id}×{c.cards or c.count}"
    if c.already_owned:
        where = "owned"
    elif c.kind == "own":
        where = "buy"
    else:
        assert c.provider and c.offer
        where = f"{c.provider.id} {c.offer.instance} ({c.billing})"
    if o.sized.replicas > 1:
        what += f" ({o.sized.replicas} copies)"
    return f"{plan.answers.buy_or_rent}: {what}, {where}, {o.sized.quant}"


def agrees(case: dict[str, Any], plan: Plan) -> bool:
    """Whether every fact the scenario pins down holds."""
    try:
        for key, want in case.get("expect", {}).items():
            EXPECT[key](plan, want)
    except AssertionError:
        return False
    return True


def main() -> None:
    cat = load_catalog()
    print("| scenario | gpuwise answer | expert answer | agree | search s |")
    print("|---|---|---|---|---:|")
    times: list[float] = []
    for case in SCENARIOS:
        s = parse_scenario(scenario_data(case), case["id"])
        runs = []
        for _ in range(3):  # the search itself: make_plan would answer a repeat from its memo
            start = time.perf_counter()
            plan = _make_plan(cat, s, TODAY, None, True, False)
            runs.append(time.perf_counter() - start)
        took = statistics.median(runs)
        times.append(took)
        ok = "yes" if agrees(case, plan) else "NO"
        print(f"| {case['id']} | {answer(plan)} | {case['expert']} | {ok} | {took:.2f} |")
    median = statistics.median(times)
    print(f"\nmedian search {median:.3f} s, max {max(times):.3f} s over {len(times)}")


if __name__ == "__main__":
    main()
