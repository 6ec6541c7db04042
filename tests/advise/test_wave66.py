"""Blind wave 66 mechanisms: spot left out for the deadline's slack is said (w66-01), a batch's
faster format is said as speed bought (w66-05)."""

from __future__ import annotations

from typing import Any

from gpuwise.catalog import Catalog
from tests.advise.wave_plans import plan_of

PRETRAIN: dict[str, Any] = {
    "workload": {"kind": "train", "model": "llama-3.2-3b", "mode": "full",
                 "dataset_tokens": 100_000_000_000, "seq_len": 4096},
    "deadline_days": 21, "region": "eu", "acquire": "rent", "entity": "company",
    "currency": "EUR", "max_gpus": 16,
    "budget": {"amount": 15000, "currency": "EUR", "per": "total"},
}  # fmt: skip
"""w66-01: a Berlin startup pre-trains a 3B model on 100B tokens within 21 days."""

REWRITE: dict[str, Any] = {
    "workload": {"kind": "batch", "model": "qwen2.5-14b", "samples": 1_000_000,
                 "prompt_tokens": 600, "gen_tokens": 300, "runs_per_month": 30},
    "deadline_days": 0.25, "months": 12, "region": "cn", "entity": "company",
    "currency": "CNY", "budget": {"amount": 30000, "currency": "CNY", "per": "month"},
}  # fmt: skip
"""w66-05: a Hangzhou shop rewrites a million descriptions a night within 6 h."""


def test_spot_left_out_for_slack_is_named_when_it_costs_less(cat: Catalog) -> None:
    plan = plan_of(cat, PRETRAIN)
    blocked = [
        o
        for o in plan.infeasible
        if [k for k, _ in o.blockers] == ["plan.block_spot_slack"]
        and o.cost.total < plan.options[0].cost.total * 0.95
    ]
    notes = [p for k, p in plan.assumptions if k == "plan.note_spot_slack"]
    assert bool(blocked) == bool(notes)
    if notes:
        cheapest = min(blocked, key=lambda o: o.cost.total)
        assert notes[0]["high"] > 0 and notes[0]["slack"] > 1
        assert str(round(cheapest.cost.total)) in notes[0]["total"].replace(",", "")


def test_a_batch_says_its_compressed_format_as_speed_bought(cat: Catalog) -> None:
    plan = plan_of(cat, REWRITE)
    for o in plan.options:
        keys = {k for k, _ in o.risks}
        assert "risk.compressed_for_target" not in keys, o.candidate.label
        assert "risk.kv_cache_fp8" not in keys, o.candidate.label
        if o.sized.compressed_for_target:
            assert "risk.compressed_for_batch" in keys
