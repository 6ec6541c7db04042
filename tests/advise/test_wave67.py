"""Blind wave 67 mechanism: a per-request speed target is eased where the user stated it
(w67-05: the total derived from 15 tokens/s per request held the old target, so no easing was
ever suggested and the one server that nearly met it went unsaid)."""

from __future__ import annotations

from typing import Any

from gpuwise.advise.fixes import apply_patch
from gpuwise.catalog import Catalog
from tests.advise.invariants import check_fixes
from tests.advise.wave_plans import TODAY, plan_of

AGENCY: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "qwen2.5-72b", "concurrency": 30,
                 "prompt_tokens": 6000, "gen_tokens": 800,
                 "target_tokens_per_s_per_request": 15},
    "months": 36, "hours_per_day": 9, "days_per_week": 5, "region": "cn",
    "data_may_leave": False, "domestic_only": True, "acquire": "buy", "entity": "institution",
    "site": "server-room", "currency": "CNY",
    "budget": {"amount": 2_000_000, "currency": "CNY", "per": "total"},
}  # fmt: skip
"""w67-05: a provincial agency's 国产化 document assistant on Qwen2.5-72B."""


def test_a_per_request_target_is_eased_per_request(cat: Catalog) -> None:
    plan = plan_of(cat, AGENCY)
    eased = [p for k, p in plan.suggestions if k == "plan.fix_throughput_each"]
    assert eased, [k for k, _ in plan.suggestions]
    each = eased[0]["patch"]["workload"]["target_tokens_per_s_per_request"]
    assert 0 < each < 15
    changed = apply_patch(plan.scenario, eased[0]["patch"]).workload
    assert changed.target_tokens_per_s == changed.target_tokens_per_s_per_request * 30
    check_fixes(cat, plan, TODAY)  # each quoted figure is the patched plan's


def test_a_total_the_user_set_is_kept_when_the_per_request_one_changes(cat: Catalog) -> None:
    data = {**AGENCY, "workload": {**AGENCY["workload"], "target_tokens_per_s": 600}}
    plan = plan_of(cat, data)
    patched = apply_patch(
        plan.scenario, {"workload": {"target_tokens_per_s_per_request": 5}}
    ).workload
    assert patched.target_tokens_per_s == 600  # the user's own total stays
