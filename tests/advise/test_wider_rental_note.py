"""Rentals the default device cap left out are quoted beside a purchase (advise/wider_note.py;
blind w43-04: a 671B MoE at 3,000 tokens/s answered "buy" with no rental shown and no word
that one rented node is too slow and two exceed max_gpus' default 8)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from gpuwise.advise.plan import Plan, make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.advise.wider_note import WIDER_MACHINES
from gpuwise.catalog import load_catalog

BIG_MOE: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "deepseek-v3", "engine": "sglang",
                 "concurrency": 96, "prompt_tokens": 3000, "gen_tokens": 500,
                 "target_tokens_per_s": 2200},
    "months": 12, "hours_per_day": 24, "region": "us", "entity": "company",
    "currency": "USD", "public_api": True,
}  # fmt: skip


def _plan(data: dict[str, Any]) -> Plan:
    return make_plan(load_catalog(), parse_scenario(data, "t"), dt.date(2026, 12, 7))


def _notes(plan: Plan) -> list[dict[str, Any]]:
    return [p for k, p in plan.assumptions if k == "plan.note_rental_with_more"]


def test_a_purchase_with_no_rental_ranked_quotes_the_rental_more_devices_allow() -> None:
    plan = _plan(BIG_MOE)
    assert plan.options and plan.options[0].candidate.kind == "own"
    assert not any(o.candidate.kind == "rent" for o in plan.options)
    (note,) = _notes(plan)
    assert note["wider"] == WIDER_MACHINES * 8 and note["most"] == 8
    assert 8 < note["devices"] <= note["wider"]
    assert note["ratio"] > 0 and note["option_en"] and note["option_zh"]


def test_a_cap_the_user_set_is_kept_without_a_note() -> None:
    plan = _plan({**BIG_MOE, "max_gpus": 8})
    assert not _notes(plan)
