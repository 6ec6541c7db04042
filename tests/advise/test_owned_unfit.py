"""Hardware the user owns that cannot run the job is said, not silently dropped."""

from __future__ import annotations

import datetime as dt
from typing import Any

from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog

TODAY = dt.date(2026, 12, 3)


def _plan(owns: list[dict[str, Any]]) -> Any:
    data = {
        "workload": {
            "kind": "train",
            "model": "qwen2.5:14b",
            "mode": "qlora",
            "dataset_tokens": 5_000_000,
            "seq_len": 2048,
        },
        "months": 3,
        "region": "cn",
        "owns": owns,
    }
    return make_plan(load_catalog(), parse_scenario(data, "test"), TODAY)


def test_an_owned_card_too_small_is_named_with_what_would_fit() -> None:
    plan = _plan([{"gpu": "rtx-4060", "count": 1}])
    assert plan.owned_unfit == [("rtx-4060", 1, 8.0)]
    fired = dict(plan.rules)
    assert "owned-too-small" in fired
    # named as people know it, not by its catalog id (blind review wave 6: raw ids in rules)
    assert load_catalog().gpu_by_id("rtx-4060").name in fired["owned-too-small"]["owned"]
    need = float(fired["owned-too-small"]["need"].split()[0])
    assert need > 8.0  # the smallest configuration that fits needs more than the 8 GB owned
    assert not any(o.candidate.already_owned for o in plan.options)


def test_an_owned_card_that_fits_is_not_flagged() -> None:
    plan = _plan([{"gpu": "rtx-4090", "count": 1}])
    assert plan.owned_unfit == []
    assert "owned-too-small" not in dict(plan.rules)
    assert plan.options[0].candidate.already_owned
