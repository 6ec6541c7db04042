"""When the first option is hardware the user already owns, the answer says "use what you own",
not "Buy — it costs least" (a reviewer read the old line as advice to buy a second card)."""

from __future__ import annotations

import datetime as dt

from gpuwise.advise.plan import make_plan
from gpuwise.advise.report import answer_lines
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.i18n import using_lang

CAT = load_catalog()
OWNED_4090 = {
    "name": "owned-4090-14b",
    "workload": {"kind": "serve", "model": "qwen2.5:14b", "concurrency": 2, "context": 8192},
    "months": 12,
    "hours_per_day": 6,
    "region": "us",
    "currency": "USD",
    "owns": [{"gpu": "rtx-4090", "count": 1}],
    "frameworks": ["vllm"],
}


def test_an_owned_card_that_wins_is_answered_as_use_what_you_own_in_both_languages() -> None:
    plan = make_plan(CAT, parse_scenario(OWNED_4090, "t"), dt.date(2026, 12, 6))
    assert plan.options[0].candidate.already_owned
    assert plan.answers.already_owned and plan.answers.buy_or_rent == "buy"
    with using_lang("en"):
        first, card, cloud = answer_lines(CAT, plan)
    assert first.startswith("Buy or rent? Neither") and "Buy —" not in first
    assert "you already own" in card and "owning wins" not in cloud
    with using_lang("zh"):
        first_zh, card_zh, _ = answer_lines(CAT, plan)
    assert "都不用" in first_zh and "已有" in card_zh


def test_a_plan_that_buys_new_cards_is_not_called_owned() -> None:
    scenario = {k: v for k, v in OWNED_4090.items() if k != "owns"}
    scenario["hours_per_day"] = 24
    scenario["months"] = 36
    plan = make_plan(CAT, parse_scenario(scenario, "t"), dt.date(2026, 12, 6))
    assert not plan.answers.already_owned
    with using_lang("en"):
        assert not answer_lines(CAT, plan)[0].startswith("Buy or rent? Neither")
