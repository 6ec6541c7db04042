"""A buyer outside mainland China is told that a China-only platform needs the mainland's
real-name sign-up, and such rentals rank after those the buyer can sign up for (blind w19-05:
"any region" sent a US company to AutoDL without a word)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from gpuwise.advise.plan import make_plan
from gpuwise.advise.ranking import MARKETPLACE_TIER, rank_key
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog

RUN: dict[str, Any] = {
    "workload": {"kind": "train", "model": "qwen2.5-7b", "mode": "lora", "dataset_tokens": 2e8},
    "months": 1, "region": "any", "entity": "company",
}  # fmt: skip


def _plan(currency: str) -> Any:
    data = {**RUN, "currency": currency}
    return make_plan(load_catalog(), parse_scenario(data, "t"), dt.date(2026, 12, 6))


def _mainland(o: Any) -> bool:
    p = o.candidate.provider
    return o.candidate.kind == "rent" and p is not None and p.region_kind == "cn"


def test_a_buyer_abroad_hears_of_the_sign_up_and_ranks_them_later() -> None:
    plan = _plan("USD")
    cn = [o for o in plan.options if _mainland(o)]
    assert cn
    assert all("risk.mainland_sign_up" in dict(o.risks) for o in cn)
    key = rank_key(plan.scenario)
    assert all(key(o)[MARKETPLACE_TIER] for o in cn)
    assert not _mainland(plan.options[0])


def test_a_buyer_in_china_is_not_told() -> None:
    for o in _plan("CNY").options:
        assert "risk.mainland_sign_up" not in dict(o.risks)
