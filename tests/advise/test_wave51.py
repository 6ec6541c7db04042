"""Blind wave 51 mechanisms: a service's spare carries what one machine carries, since a
machine, not a card, is what fails (w51-02)."""

from __future__ import annotations

from typing import Any

import pytest

from gpuwise.advise.failover import spare_replicas
from gpuwise.advise.report import plan_report
from gpuwise.catalog import Catalog
from tests.advise.wave_plans import plan_of

BANK: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "gpt-oss-120b", "concurrency": 30,
                 "prompt_tokens": 6000, "gen_tokens": 400,
                 "target_tokens_per_s_per_request": 20},
    "months": 36, "hours_per_day": 24, "region": "france", "currency": "EUR",
    "entity": "company", "data_may_leave": False, "standby": "hot",
}  # fmt: skip
"""w51-02: a Paris bank's RAG assistant in its own data centre, with a hot spare."""

RENTED_API: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "qwen3-32b", "concurrency": 64,
                 "prompt_tokens": 2000, "gen_tokens": 300,
                 "target_tokens_per_s_per_request": 25},
    "months": 12, "hours_per_day": 24, "region": "us", "currency": "USD",
    "entity": "company", "public_api": True, "standby": "hot",
}  # fmt: skip


def _left_after_one_machine_fails(o: Any) -> float:
    """Tokens/s the option still serves when its busiest machine fails (spare included)."""
    replicas = max(1, o.sized.replicas)
    per_copy = o.sized.tokens_per_s / replicas
    machines = max(1, o.candidate.nodes)
    lost = replicas if machines == 1 else max(1, replicas // machines)
    return (replicas - lost + o.spare_replicas) * per_copy


@pytest.mark.parametrize("doc", [BANK, RENTED_API], ids=["bank-own", "api-rented"])
def test_a_service_with_a_spare_survives_any_one_machine(cat: Catalog, doc: dict[str, Any]) -> None:
    """N+1 is counted in machines: with any one machine down (its copies with it), the copies
    left and the spare still carry the target the option carries at its central estimate,
    for every option that is not a server whose own copies are its spare."""
    plan = plan_of(cat, doc)
    target = plan.scenario.workload.target_tokens_per_s
    checked = 0
    for o in plan.options + plan.infeasible:
        if "failover_replica" not in o.cost.items or o.sized.tokens_per_s < target:
            continue
        assert o.spare_replicas == spare_replicas(plan.scenario, o) >= 1
        assert _left_after_one_machine_fails(o) >= target * (1 - 1e-9), o.candidate.label
        checked += 1
    assert checked


def test_the_bank_does_not_spare_four_copies_in_one_host_with_one_card(cat: Catalog) -> None:
    """w51-02: 4 x RTX PRO 5000 72GB held 4 copies in one workstation and its "N+1" was a
    one-card machine; the spare machine now holds the copies that carry the 600 tokens/s."""
    plan = plan_of(cat, BANK)
    shared = [
        o
        for o in plan.options
        if o.candidate.kind == "own" and o.candidate.nodes == 1 and o.sized.replicas >= 2
        and o.candidate.system is None and "failover_replica" in o.cost.items
    ]  # fmt: skip
    assert shared
    rows = plan_report(cat, plan, 50).options
    shown = 0
    for o in shared:
        per_copy = o.sized.tokens_per_s / o.sized.replicas
        assert o.spare_replicas * per_copy >= 600 * (1 - 1e-9), o.candidate.label
        row = next(
            (r for r in rows if (r.gpu, r.devices) == (o.candidate.gpu.id, o.sized.count)), None
        )
        if row is not None:  # the table shows each card's best-ranked size
            assert row.spare_devices == o.spare_replicas * (o.sized.count // o.sized.replicas)
            shown += 1
    assert shown


SHANGHAI_LOCAL: dict[str, Any] = {
    "workload": {"kind": "local", "model": "Qwen/Qwen3-30B-A3B-Instruct-2507", "context": 32768},
    "months": 36, "hours_per_day": 3, "region": "cn", "currency": "CNY",
    "entity": "individual", "site": "home",
    "budget": {"amount": 15000, "currency": "CNY", "per": "total"},
}  # fmt: skip
"""w51-04: a Shanghai engineer's private assistant, 3 hours a day for three years."""


def test_a_persons_own_use_is_billed_for_its_hours_on_a_per_card_market(cat: Catalog) -> None:
    """w51-04: AutoDL hands a stopped container's card back to its market, and a service there
    is kept running; a person's 3 hours a day of chat is stopped and started, its risk said
    (the morning may find no free card), not billed around the clock."""
    plan = plan_of(cat, SHANGHAI_LOCAL)
    bound = [
        o
        for o in plan.options + plan.infeasible
        if o.candidate.kind == "rent" and o.candidate.billing == "on-demand"
        and o.candidate.provider is not None and o.candidate.provider.restart_bound_to_host
    ]  # fmt: skip
    assert bound
    for o in bound:
        assert o.busy_hours_per_month == pytest.approx(3 * 365.25 / 12, rel=0.01), o.candidate.label
        assert "kept-running" not in {k for k, _ in o.rules}
        assert "risk.daily_restart" in {k for k, _ in o.risks}
