"""A card is offered to buy only where it is sold (catalog `regions`, as for systems): a
China-market variant (RTX 4090 D, L20) or a card modified there (RTX 2080 Ti 22 GB) was the
cheapest purchase of a US plan, priced at a China price converted, with no shop to buy it from."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from gpuwise.advise.plan import Plan, make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import Catalog, load_catalog
from gpuwise.catalog.systems import sold_in

TODAY = dt.date(2026, 12, 6)


def _serve_32b(region: str, currency: str) -> dict[str, Any]:
    return {
        "name": f"dev-team-32b-{region}",
        "workload": {
            "kind": "serve",
            "model": "qwen2.5:32b",
            "concurrency": 4,
            "context": 8192,
            "target_tokens_per_s": 60,
        },
        "months": 24,
        "hours_per_day": 8,
        "region": region,
        "currency": currency,
        "frameworks": ["vllm"],
    }


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


def _bought_gpus(plan: Plan) -> set[str]:
    every = [*plan.options, *plan.unchecked, *plan.infeasible]
    return {o.candidate.gpu.id for o in every if o.candidate.kind == "own"}


def test_china_only_cards_are_in_the_catalog_as_sold_in_china_only(cat: Catalog) -> None:
    for gpu_id in ("rtx-4090d", "rtx-2080-ti-22gb", "l20"):
        gpu = cat.gpu(gpu_id)
        assert sold_in(gpu, "cn") and not sold_in(gpu, "global"), gpu_id
        assert "regions" in gpu.field_sources, gpu_id  # the fact has a source
    assert sold_in(cat.gpu("rtx-4090"), "global")


def test_a_us_buyer_is_never_offered_a_china_market_card_and_is_told_why(cat: Catalog) -> None:
    plan = make_plan(cat, parse_scenario(_serve_32b("us", "USD"), "t"), TODAY)
    bought = _bought_gpus(plan)
    assert not {"rtx-4090d", "rtx-2080-ti-22gb", "l20"} & bought
    assert "rtx-3090" in bought  # the global cards are still there
    assert plan.dropped.get("not-sold-here", 0) >= 2
    named = plan.dropped_examples["not-sold-here"]
    assert "rtx-4090d" in named or plan.dropped["not-sold-here"] > len(named)


def test_a_buyer_in_china_still_gets_the_china_market_cards(cat: Catalog) -> None:
    plan = make_plan(cat, parse_scenario(_serve_32b("cn", "CNY"), "t"), TODAY)
    assert {"rtx-4090d", "rtx-2080-ti-22gb"} <= _bought_gpus(plan)
