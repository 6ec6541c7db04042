"""Cards the user owns are priced where they are: four blower RTX 4090s in one host exist
whatever a desktop takes (blind w19-04: the catalog's max_per_host refused the owned four,
so the plan used two and rented more beside them)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.cost.resolve import OwnOptions, make_context, resolve_own
from gpuwise.errors import UserError

TODAY = dt.date(2026, 12, 6)


def test_owned_cards_are_not_held_to_what_a_host_takes_when_bought() -> None:
    cat = load_catalog()
    cny = make_context(cat, "CNY", TODAY)
    gpu = cat.gpu("rtx-4090")
    many = gpu.max_per_host + 2
    assert resolve_own(cat, cny, gpu.id, many, OwnOptions(owned=True)).spec.count == many
    with pytest.raises(UserError) as err:
        resolve_own(cat, cny, gpu.id, many)
    assert err.value.key == "cost.too_many_cards"


def test_the_owned_four_serve_as_two_copies() -> None:
    data: dict[str, Any] = {
        "workload": {"kind": "serve", "model": "qwen3-32b", "concurrency": 32,
                     "prompt_tokens": 2000, "gen_tokens": 400,
                     "target_tokens_per_s_per_request": 15},
        "owns": [{"gpu": "rtx-4090", "count": 4}], "owns_host": True, "months": 24,
        "hours_per_day": 9, "region": "cn", "entity": "company", "site": "office",
        "currency": "CNY",
    }  # fmt: skip
    first = make_plan(load_catalog(), parse_scenario(data, "t"), TODAY).options[0]
    assert first.candidate.already_owned and first.candidate.count == 4
    assert first.beside is None
