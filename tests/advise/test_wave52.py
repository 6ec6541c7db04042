"""Blind wave 52 mechanisms: what a company keeps in its server room is a workstation or a
server, whatever its hours (w52-02)."""

from __future__ import annotations

from typing import Any

import pytest

from gpuwise.catalog import Catalog
from tests.advise.wave_plans import plan_of

MITTELSTAND: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "mistralai/Mistral-Small-3.2-24B-Instruct-2506",
                 "concurrency": 10, "prompt_tokens": 2000, "gen_tokens": 300,
                 "target_tokens_per_s_per_request": 20},
    "months": 36, "hours_per_day": 10, "days_per_week": 5, "region": "germany",
    "data_may_leave": False, "entity": "company", "site": "server-room", "currency": "EUR",
    "budget": {"amount": 40000, "currency": "EUR", "per": "total"},
}  # fmt: skip
"""w52-02: a manufacturer's internal assistant for 50 engineers, in office hours."""

HOME_PLATFORMS = {"desktop", "desktop-entry"}


@pytest.mark.parametrize("site", ["server-room", "datacenter"])
def test_a_companys_machine_in_a_server_room_is_never_a_home_desktop(
    cat: Catalog, site: str
) -> None:
    """Office hours or not, a company's machine in a room built for servers is administered
    remotely and runs for years: ECC memory and remote management, not a gaming desktop."""
    plan = plan_of(cat, {**MITTELSTAND, "site": site})
    bought = [
        o for o in plan.options + plan.infeasible
        if o.candidate.kind == "own" and o.candidate.system is None and o.platform
    ]  # fmt: skip
    assert bought
    assert not [o.candidate.label for o in bought if o.platform in HOME_PLATFORMS]


def test_the_same_service_in_an_office_may_run_on_a_desktop(cat: Catalog) -> None:
    """The rule is the room's, not the company's: in an office a desktop stays allowed."""
    plan = plan_of(cat, {**MITTELSTAND, "site": "office"})
    platforms = {o.platform for o in plan.options + plan.infeasible if o.candidate.kind == "own"}
    assert platforms & HOME_PLATFORMS
