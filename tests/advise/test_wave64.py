"""Blind wave 64 mechanisms: a public API answers at every hour (w64-05: a customer-service
API busy 15 h a day was priced switched off every night)."""

from __future__ import annotations

from typing import Any

from gpuwise.advise.stop_start import HOURLY
from gpuwise.catalog import Catalog
from gpuwise.catalog.schema_cloud import HOURS_PER_MONTH
from gpuwise.cost.model import busy_hours_per_month
from tests.advise.wave_plans import plan_of

CHATBOT: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "qwen3-32b", "concurrency": 32,
                 "prompt_tokens": 2500, "cached_prompt_share": 0.5, "gen_tokens": 250,
                 "target_tokens_per_s_per_request": 15, "first_token_s": 2},
    "months": 12, "hours_per_day": 15, "region": "cn", "public_api": True,
    "acquire": "rent", "currency": "CNY", "entity": "company",
    "budget": {"amount": 30000, "currency": "CNY", "per": "month"},
}  # fmt: skip
"""w64-05: a Hangzhou SaaS's customer-support API, busy 08:00-23:00, quiet but up at night."""


def test_a_public_api_on_hourly_rentals_keeps_one_machine_up_at_night(cat: Catalog) -> None:
    plan = plan_of(cat, CHATBOT)
    busy = busy_hours_per_month(15, 7)
    hourly = [o for o in plan.options if o.candidate.billing in HOURLY]
    assert hourly
    for o in hourly:
        machines = max(1, o.candidate.nodes)
        floor = (machines * busy + HOURS_PER_MONTH - busy) / machines
        assert o.busy_hours_per_month >= floor - 1e-6, o.candidate.label  # never all off
        said = [
            k
            for k, _ in o.rules
            if k
            in (
                "public-api-quiet-hours",
                "kept-running",
                "kept-running-unconfirmed",
                "kept-running-no-stop",
            )
        ]
        assert said, o.candidate.label  # the bill's hours are explained


def test_an_internal_service_still_stops_at_night(cat: Catalog) -> None:
    internal = CHATBOT | {"public_api": False}
    plan = plan_of(cat, internal)
    stopped = [
        o
        for o in plan.options
        if o.candidate.billing in HOURLY and o.busy_hours_per_month < HOURS_PER_MONTH - 1
    ]
    assert stopped  # the nightly stop stays where nobody calls at night
    assert all(k != "public-api-quiet-hours" for o in stopped for k, _ in o.rules)
