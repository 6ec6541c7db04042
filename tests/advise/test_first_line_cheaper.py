"""Blind w16-03: the first line said 'it costs least' beside a cheaper option ranked after.

The ranking puts risk tiers before cost (a public API on owned cards in an office, a
marketplace host, partial support …), so the first option is not always the cheapest ranked.
The first line then names the cheaper one, its total and the risks that rank it after.
"""

from __future__ import annotations

import datetime as dt

from gpuwise.advise.evaluate import incomplete_capex
from gpuwise.advise.labels import candidate_words
from gpuwise.advise.plan import make_plan
from gpuwise.advise.report import plan_report
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.i18n import set_lang

OFFICE_API = {
    "workload": {
        "kind": "serve",
        "model": "qwen2.5:7b",
        "concurrency": 16,
        "context": 8192,
        "prompt_tokens": 1024,
        "gen_tokens": 512,
    },
    "months": 12,
    "hours_per_day": 24,
    "region": "cn",
    "entity": "company",
    "public_api": True,
    "owns": [{"gpu": "rtx-4090", "count": 2}],
    "owns_host": True,
}


def test_a_cheaper_option_ranked_after_is_named_in_the_first_line() -> None:
    set_lang("en")
    cat = load_catalog()
    plan = make_plan(cat, parse_scenario(OFFICE_API, "t"), dt.date(2026, 12, 6), fixes=False)
    first = plan_report(cat, plan, top=5).answer_text[0]
    best = plan.options[0]
    priced = [o for o in plan.options[1:] if not incomplete_capex(o)]
    cheaper = min(priced, key=lambda o: o.cost.total)
    assert cheaper.cost.total < 0.95 * best.cost.total  # the owned 4090s cost only power
    assert "costs least" not in first
    named = candidate_words(cheaper.candidate, "en")  # by display name, not the catalog id
    assert named in first and "ranks after it" in first
