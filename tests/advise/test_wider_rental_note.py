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


def test_a_public_api_insures_copies_not_the_fastest_span() -> None:
    """Among layouts that meet the target only at the central estimate, a public API takes the
    one whose insured copies and spare take the fewest devices (sizing_pick.insured_devices;
    blind w43-04: one copy over two 8-GPU nodes and a 16-GPU spare, where two 8-GPU copies
    and one 8-GPU spare do)."""
    from dataclasses import replace

    from gpuwise.advise.margin import slow_tokens_per_s
    from gpuwise.advise.sizing_pick import insured_devices

    plan = _plan({**BIG_MOE, "max_gpus": 24})
    rented = [o for o in plan.options if o.candidate.kind == "rent" and o.candidate.nodes == 2]
    assert rented
    for o in rented:  # every 2-node rental here serves a copy on each node
        assert o.sized.machines_per_replica == 1 and o.sized.replicas == 2, o.candidate.label
    x = rented[0].sized
    slow = slow_tokens_per_s(x)
    target = 1.3 * slow  # short by 1.3x at the slow end
    copies = insured_devices(x, target)  # two copies of 8: one more copy and a spare
    assert copies == (2 + 1 + 1) * 8
    span = replace(x, replicas=1, machines_per_replica=2)  # one copy of 16, same speed
    assert insured_devices(span, target) == (2 + 1) * 16
