"""An owned card too small for a local model is also offered with more of the same card in the
same PC and the rest of the weights in system RAM (advise/owned_extend._extend_offload; blind
w44-04: a second used RTX 3090 with a quarter of gpt-oss-120b in RAM was never tried, and a
4 x Tesla P40 server was bought for a home)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from gpuwise.advise.plan import Plan, make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog

LOCAL: dict[str, Any] = {
    "workload": {"kind": "local", "model": "gpt-oss-120b", "context": 16384, "concurrency": 1,
                 "target_tokens_per_s": 12},
    "months": 24, "hours_per_day": 2, "region": "us", "entity": "individual", "currency": "USD",
    "owns": [{"gpu": "rtx-4090", "count": 1}], "host_ram_gb": 96, "host_ram_type": "ddr5",
}  # fmt: skip


def _plan(data: dict[str, Any]) -> Plan:
    return make_plan(load_catalog(), parse_scenario(data, "t"), dt.date(2026, 12, 7))


def _extended(plan: Plan) -> list[Any]:
    seen = [*plan.options, *plan.infeasible]
    return [o for o in seen if any(k == "owned-extend-offload" for k, _ in o.rules)]


def test_the_owned_card_is_extended_with_a_card_and_ram() -> None:
    """More of the owned card, and any other card that goes in the PC (blind w64-03: a used
    RTX 3090 beside an owned 4090 was never tried), each with the rest in RAM."""
    plan = _plan(LOCAL)
    found = _extended(plan)
    assert any(o.candidate.gpu.id == "rtx-4090" for o in found), "one more of the owned card"
    assert len({o.candidate.gpu.id for o in found}) > 1, "other cards beside it"
    for o in found:
        c = o.candidate
        assert c.owned_kept == (("rtx-4090", 1),) and c.gpu.form_factor == "pcie"
        assert 0 < c.offload_fraction < 1
        assert o.cost.items["cards"] > 0 and not o.cost.items.get("host")  # the PC is owned
    alone = [o for o in plan.options + plan.infeasible if o.candidate.already_owned]
    if alone:  # two cards keep less in RAM than one: faster
        assert max(o.sized.tokens_per_s for o in found) > max(o.sized.tokens_per_s for o in alone)


def test_no_extension_with_ram_where_the_cards_hold_it_all() -> None:
    plan = _plan({**LOCAL, "workload": {**LOCAL["workload"], "model": "qwen3-32b"}})
    assert not _extended(plan)
