"""Owned hardware in a plan costs only what it draws (issue 26 item 4)."""

from __future__ import annotations

import datetime as dt

import pytest

from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog

TODAY = dt.date(2026, 12, 2)
V100_SERVICE = {
    "workload": {
        "kind": "serve",
        "model": "qwen2.5:14b",
        "concurrency": 8,
        "context": 8192,
        "prompt_tokens": 1024,
        "gen_tokens": 256,
        "target_tokens_per_s": 150,
    },
    "months": 24,
    "hours_per_day": 24,
    "region": "cn",
    "owns": [{"gpu": "v100-32gb", "count": 4}],
}


def test_owned_v100s_serving_24x7_beat_buying_new_cards() -> None:
    """Regression: billed at 4.76 kW (TDP x 0.996, a DGX H100's host per module, PUE 1.58) the
    four V100s the user owns ranked 19th behind new cards. At their real draw, and using only as
    many of them as the job needs, they come first."""
    plan = make_plan(load_catalog(), parse_scenario(V100_SERVICE, "test"), TODAY)
    best = plan.options[0]
    assert best.candidate.already_owned and best.candidate.gpu.id == "v100-32gb"
    assert best.candidate.cards < 4  # a 14B service needs one or two of the four
    all_four = next(o for o in plan.options if o.candidate.already_owned and o.candidate.cards == 4)
    kw = all_four.cost.details["energy_kwh"] / all_four.cost.details["busy_hours"]
    assert kw < 1.5, kw  # all four at once: 1.4 kW, not 4.76
    assert set(best.cost.items) == {"electricity", "maintenance"}


def test_company_in_a_server_room_pays_more_than_a_household_at_home() -> None:
    home = make_plan(load_catalog(), parse_scenario(V100_SERVICE, "test"), TODAY)
    room = {**V100_SERVICE, "entity": "company", "site": "server-room"}
    firm = make_plan(load_catalog(), parse_scenario(room, "test"), TODAY)

    def owned(plan: object) -> float:
        o = next(o for o in plan.options if o.candidate.already_owned)  # type: ignore[attr-defined]
        return float(o.cost.items["electricity"])

    assert owned(firm) > 1.8 * owned(home)  # PUE 1.8 and a dearer business tariff
    power = next(p for k, p in firm.assumptions if k == "plan.assume_power")
    assert power["pue"] == 1.8 and "business" in power["who_en"]


def test_owned_cards_left_unused_in_the_box_draw_their_idle_power() -> None:
    """Blind w28-05: serving on 1 of 4 owned V100s charged only that card's draw, as if the
    3 others were not in the powered machine. Each option's energy is its busy cards at load
    plus the owned cards it leaves unused at idle, so the gap between 1 and 4 cards is the
    difference of their loads, not the whole of 3 cards' draw."""
    plan = make_plan(load_catalog(), parse_scenario(V100_SERVICE, "test"), TODAY)
    owned = {o.candidate.cards: o for o in plan.options if o.candidate.already_owned}
    assert {1, 4} <= set(owned), sorted(owned)
    for cards, o in owned.items():
        spec = o.own_spec
        assert spec is not None and spec.gpu_load_w and spec.gpu_idle_w
        assert spec.idle_cards == 4 - cards
        watts = cards * spec.gpu_load_w + (4 - cards) * spec.gpu_idle_w + spec.host_load_w
        kwh = o.cost.details["busy_hours"] * watts / 1000 * spec.pue
        assert o.cost.details["energy_kwh"] == pytest.approx(kwh, rel=1e-9), cards
