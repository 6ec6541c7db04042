"""The vram-too-small rule names the smallest configuration that holds the job in words, in the
reader's language, and picks it from the options the plan ranks (blind wave 9: six plans named
'apple-m3-max×1', an infeasible Mac, as the example for a company's GPU service)."""

from __future__ import annotations

import datetime as dt
import re

from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog

CAT = load_catalog()
SERVE_70B = {
    "name": "team-70b",
    "workload": {"kind": "serve", "model": "llama-3.3-70b", "concurrency": 16, "context": 8192},
    "months": 12,
    "region": "us",
    "entity": "company",
    "frameworks": ["vllm"],
    "currency": "USD",
}


def test_the_smallest_holding_configuration_is_a_ranked_option_named_in_words() -> None:
    plan = make_plan(CAT, parse_scenario(SERVE_70B, "t"), dt.date(2026, 12, 6))
    fired = [p for k, p in plan.rules if k == "vram-too-small"]
    assert fired, [k for k, _ in plan.rules]
    params = fired[0]
    need = params["need_gib"] * 1024**3
    totals = [o.sized.memory.device_total_bytes * o.candidate.count for o in plan.options]
    assert need == min(totals)  # from the ranked options
    for lang in ("en", "zh"):
        words = params[f"option_{lang}"]
        assert words and not re.search(r"[a-z0-9]+-[a-z0-9-]+×\d", words), words  # no raw id
