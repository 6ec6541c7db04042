"""A public API is not served from a rental the internet reaches only through its platform's
port proxy (catalog provider `public_endpoint`, advise/site.proxy_only; blind w17-03: a
per-card container platform was ranked for a public API)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from gpuwise.advise.plan import make_plan
from gpuwise.advise.ranking import MARKETPLACE_TIER, rank_key
from gpuwise.advise.scenario import parse_scenario
from gpuwise.advise.site import proxy_only
from gpuwise.catalog import load_catalog

API: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "qwen2.5-7b", "concurrency": 32,
                 "prompt_tokens": 1000, "gen_tokens": 300, "target_tokens_per_s_per_request": 15},
    "months": 12, "hours_per_day": 24, "region": "cn", "entity": "company", "currency": "CNY",
}  # fmt: skip


def _plan(**change: Any) -> Any:
    return make_plan(load_catalog(), parse_scenario({**API, **change}, "t"), dt.date(2026, 12, 6))


@pytest.fixture(scope="module")
def public() -> Any:
    return _plan(public_api=True)


def test_proxied_rentals_say_so_and_rank_after_addressable_ones(public: Any) -> None:
    proxied = [o for o in public.options if proxy_only(o)]
    assert proxied, "the catalog marks per-card container platforms"
    for o in proxied:
        assert "risk.platform_proxy_only" in dict(o.risks), o.candidate.label
    key = rank_key(public.scenario)
    early = [o for o in public.options if key(o)[:MARKETPLACE_TIER] == (False,) * MARKETPLACE_TIER]
    first_proxied = next(i for i, o in enumerate(early) if proxy_only(o))
    # the public-service tier (index 5 of the key): every proxied rental is in it, after all
    # the addressable data-centre rentals of the earlier tiers
    assert all(key(o)[MARKETPLACE_TIER] for o in early if proxy_only(o))
    later = early[first_proxied:]
    assert not any(o.candidate.kind == "rent" and not key(o)[MARKETPLACE_TIER] for o in later)


def test_an_internal_service_is_not_held_to_it() -> None:
    for o in _plan().options:
        assert "risk.platform_proxy_only" not in dict(o.risks)
