"""Every card or system on the user's shortlist (`consider:`) is answered: where it ranks and
what it costs, or why it is not an option (advise/considered.py; blind w45-04: a DGX Spark and
a Mac Studio the client named went unmentioned)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.errors import UserError
from gpuwise.i18n import t

CAT = load_catalog()
CODING: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "qwen3-coder-30b-a3b", "concurrency": 15,
                 "context": 65536, "prompt_tokens": 32000, "cached_prompt_share": 0.7,
                 "gen_tokens": 800, "target_tokens_per_s_per_request": 20},
    "months": 36, "hours_per_day": 10, "days_per_week": 5, "region": "france",
    "data_may_leave": False, "currency": "EUR", "entity": "company", "site": "office",
    "frameworks": ["vllm"],
    "consider": ["dgx-spark", "ryzen-ai-max-395", "rtx-pro-6000", "h100-sxm"],
}  # fmt: skip


@pytest.fixture(scope="module")
def plan() -> Any:
    return make_plan(CAT, parse_scenario(CODING, "t"), dt.date(2026, 12, 6))


def test_each_shortlisted_item_gets_one_line_in_order(plan: Any) -> None:
    lines = [(k, p) for k, p in plan.assumptions if k.startswith("plan.considered_")]
    names = [CAT.gpu(n).name for n in CODING["consider"]]
    assert [p["name"] for _, p in lines] == names
    for key, params in lines:
        assert t(key, lang="en", **params) and t(key, lang="zh", **params)


def test_a_ranked_item_names_its_rank_and_total(plan: Any) -> None:
    ranked = {p["name"]: p for k, p in plan.assumptions if k == "plan.considered_ranked"}
    for name, p in ranked.items():
        o = plan.options[p["rank"] - 1]
        assert o.candidate.gpu.name == name
        assert all(x.candidate.gpu.name != name for x in plan.options[: p["rank"] - 1])


def test_an_item_that_is_no_option_says_why(plan: Any) -> None:
    fates = {p["name"]: k for k, p in plan.assumptions if k.startswith("plan.considered_")}
    spark = CAT.gpu("dgx-spark").name
    assert fates[spark] != "plan.considered_ranked"  # 128 GB at 273 GB/s: far too slow for 15
    assert all(o.candidate.gpu.id != "dgx-spark" for o in plan.options)


def test_an_unknown_item_is_one_clear_error() -> None:
    data = {**CODING, "consider": ["rtx-9999"]}
    with pytest.raises(UserError):
        make_plan(CAT, parse_scenario(data, "t"), dt.date(2026, 12, 6))


def test_an_unpriced_item_is_not_quoted_as_a_total() -> None:
    """Blind w47-03: an 8 x MI300X server without a catalog price read as '$26,027 in all'."""
    data = {**CODING, "consider": ["mi300x"], "region": "us", "currency": "USD"}
    plan = make_plan(CAT, parse_scenario(data, "t"), dt.date(2026, 12, 6))
    fates = [(k, p) for k, p in plan.assumptions if k.startswith("plan.considered_")]
    assert len(fates) == 1
    key, params = fates[0]
    if key in ("plan.considered_ranked", "plan.considered_unpriced"):
        option = plan.options[params["rank"] - 1]
        from gpuwise.advise.evaluate import incomplete_capex

        assert (key == "plan.considered_unpriced") == incomplete_capex(option)
