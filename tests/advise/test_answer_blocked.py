"""With nothing ranked, the first line says why: priced options that break a limit beside
unpriced ones are not "nothing could be checked" (blind w29-04: a bank's 国产化 budget below
the one priced domestic server was told its candidates lacked prices)."""

from __future__ import annotations

import datetime as dt

from gpuwise.advise.plan import make_plan
from gpuwise.advise.report import answer_lines
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.i18n import t

BANK = {
    "workload": {"kind": "serve", "model": "qwen3-32b", "concurrency": 40,
                 "prompt_tokens": 4000, "cached_prompt_share": 0.5, "gen_tokens": 600,
                 "target_tokens_per_s_per_request": 15},
    "months": 36, "hours_per_day": 12, "region": "cn", "data_may_leave": False,
    "domestic_only": True, "currency": "CNY", "entity": "company", "site": "server-room",
    "resale_pct": 0, "budget": {"amount": 1_500_000, "currency": "CNY", "per": "total"},
}  # fmt: skip


def test_blocked_and_unchecked_options_are_both_named() -> None:
    cat = load_catalog()
    plan = make_plan(cat, parse_scenario(BANK, "t"), dt.date(2026, 12, 7))
    assert not plan.options and plan.unchecked and plan.infeasible
    assert answer_lines(cat, plan) == [t("plan.answer_unchecked_and_blocked")]
    generous = {**BANK, "budget": {"amount": 10**8, "currency": "CNY", "per": "total"}}
    assert make_plan(cat, parse_scenario(generous, "t"), dt.date(2026, 12, 7)).options
