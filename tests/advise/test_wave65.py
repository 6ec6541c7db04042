"""Blind wave 65 mechanisms: a used card resells at its own price aged along the curve
(w65-05), a single one-off job's disk bills while it runs (w65-04), an H20 bought in China
carries its supply risk (w65-02), the faster-for-more note stays off one-off batches and ties
(w65-04), a cheaper option ranked after the first names its spare (w65-03)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from gpuwise.advise.report import _cheaper_ranked_after
from gpuwise.catalog import Catalog
from gpuwise.cost.own import resale_fraction, resale_value
from gpuwise.cost.rent import RentUsage, rent_cost
from gpuwise.i18n import using_lang
from tests.advise.wave_plans import plan_of

THESIS: dict[str, Any] = {
    "workload": {"kind": "train", "model": "Qwen/Qwen2.5-14B-Instruct", "mode": "qlora",
                 "dataset_tokens": 10_000_000, "seq_len": 2048, "epochs": 3,
                 "runs_per_month": 2.5},
    "months": 12, "region": "cn", "currency": "CNY", "entity": "individual",
    "owns_host": True, "budget": {"amount": 6000, "currency": "CNY", "per": "total"},
}  # fmt: skip
"""w65-05: a student's QLoRA runs, renting against a used card for his own PC."""


BATCH_70B: dict[str, Any] = {
    "workload": {
        "kind": "batch",
        "model": "llama-3.3-70b",
        "samples": 100_000,
        "prompt_tokens": 600,
        "gen_tokens": 1000,
        "quant": "fp8",
    },
    "deadline_days": 3,
    "allow_spot": True,
    "region": "us",
    "currency": "USD",
    "entity": "institution",
}

R1_ONPREM: dict[str, Any] = {
    "workload": {
        "kind": "serve",
        "model": "deepseek-r1-671b",
        "concurrency": 32,
        "prompt_tokens": 4000,
        "gen_tokens": 1200,
        "target_tokens_per_s_per_request": 15,
    },
    "months": 36,
    "region": "cn",
    "data_may_leave": False,
    "site": "server-room",
    "currency": "CNY",
    "entity": "company",
    "budget": {"amount": 3_000_000, "currency": "CNY", "per": "total"},
}

BATCH_8B: dict[str, Any] = {
    "workload": {
        "kind": "batch",
        "model": "qwen3-8b",
        "samples": 200_000,
        "prompt_tokens": 800,
        "gen_tokens": 400,
    },
    "deadline_days": 2,
    "region": "us",
    "currency": "USD",
    "entity": "company",
}

INDIA_API: dict[str, Any] = {
    "workload": {
        "kind": "serve",
        "model": "qwen3-14b",
        "concurrency": 64,
        "prompt_tokens": 2000,
        "cached_prompt_share": 0.25,
        "gen_tokens": 400,
        "target_tokens_per_s_per_request": 25,
    },
    "months": 12,
    "hours_per_day": 24,
    "region": "india",
    "public_api": True,
    "acquire": "rent",
    "currency": "USD",
    "entity": "company",
    "budget": {"amount": 5000, "currency": "USD", "per": "month"},
}


def test_a_card_bought_used_resells_at_its_price_aged_along_the_curve(cat: Catalog) -> None:
    plan = plan_of(cat, THESIS)
    used = [
        o
        for o in (*plan.options, *plan.infeasible)
        if o.own_spec is not None and o.own_spec.bought_used and o.own_spec.resale_curve
    ]
    assert used, "a person in China buys some cards second-hand"
    for o in used:
        spec = o.own_spec
        assert spec is not None
        now = resale_fraction(spec.resale_curve, spec.resale_age_months, spec.resale_tail_annual)
        later = resale_fraction(
            spec.resale_curve, spec.resale_age_months + 12, spec.resale_tail_annual
        )
        expected = spec.count * spec.card_price * min(1.0, later / now)
        assert abs(resale_value(spec, 12) - expected) < 1e-6 * max(1.0, expected)
    old_3090 = [o for o in used if o.candidate.gpu.id == "rtx-3090"]
    if old_3090:  # six years old: the launch-price curve put it at half its used price
        spec = old_3090[0].own_spec
        assert spec is not None
        assert resale_value(spec, 12) > resale_value(replace(spec, bought_used=False), 12)


def test_a_single_one_off_run_keeps_its_disk_only_while_it_runs(cat: Catalog) -> None:
    plan = plan_of(cat, BATCH_70B)
    rented = [o for o in plan.options if o.candidate.kind == "rent" and o.usage is not None]
    assert rented and all(o.usage is not None and o.usage.disk_while_running for o in rented)
    month = RentUsage(data_gb=100, disk_while_running=False)
    o = rented[0]
    assert o.rent_spec is not None
    short = rent_cost(o.rent_spec, 14.0, 1.0, replace(month, disk_while_running=True))
    whole = rent_cost(o.rent_spec, 14.0, 1.0, month)
    if "block_storage" in whole.items:  # a 14 h job's disk: 14 h of it, not a month
        assert short.items["block_storage"] < whole.items["block_storage"] / 20


def test_an_h20_bought_in_china_says_its_supply_risk(cat: Catalog) -> None:
    plan = plan_of(cat, R1_ONPREM)
    h20 = [o for o in plan.options if o.candidate.gpu.id in ("h20", "h20-141gb")]
    assert h20
    for o in h20:
        assert any(k == "risk.supply_uncertain" for k, _ in o.risks), o.candidate.label
    others = [o for o in plan.options if not o.candidate.gpu.supply_uncertain_in]
    assert not any(k == "risk.supply_uncertain" for o in others for k, _ in o.risks)


def test_no_faster_for_more_note_on_a_one_off_batch(cat: Catalog) -> None:
    plan = plan_of(cat, BATCH_8B)
    assert not any(k == "plan.note_faster_for_more" for k, _ in plan.assumptions)


def test_a_cheaper_option_ranked_after_names_its_spare(cat: Catalog) -> None:
    plan = plan_of(cat, INDIA_API)
    with using_lang("en"):
        text = _cheaper_ranked_after(plan)
    cheaper = [o for o in plan.options[1:] if o.cost.total < plan.options[0].cost.total * 0.95]
    if text and any("failover_replica" in o.cost.items for o in cheaper):
        assert "spare" in text and "×1)" not in text  # names, not catalog ids
