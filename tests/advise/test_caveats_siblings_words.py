"""Mechanisms found when the CN market data grew (AutoDL's per-card list, 共绩算力's spot):

- between two options that need porting work, the one with fewer partial layers ranks first
  unless the other saves more than the porting of its extra layer costs (advise/porting.py);
- a smaller model suggested for a job that does not fit is never a previous generation
  (Llama 2 13B for Llama 3.1 70B), which a smaller current model beats;
- rule words fit the job: why spot was left out says "deadline" for a training run with one,
  and the monthly-billing line speaks only about rentals the report shows.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from gpuwise.advise.evaluate import Option, caveats
from gpuwise.advise.fixes import smaller_siblings
from gpuwise.advise.margin import option_ranking_total
from gpuwise.advise.plan import Plan, make_plan
from gpuwise.advise.ranking import TIERS, rank_key
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.i18n import t, using_lang

TODAY = dt.date(2026, 12, 6)
DOMESTIC_PILOT: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "qwen2.5:7b", "concurrency": 8},
    "months": 1,
    "hours_per_day": 10,
    "region": "cn",
    "domestic_only": True,
    "entity": "company",
}


def plan_for(data: dict[str, Any]) -> Plan:
    return make_plan(load_catalog(), parse_scenario(data, "test"), TODAY)


def tier(plan: Plan, o: Option) -> object:
    return rank_key(plan.scenario)(o)[:TIERS]


def test_fewer_partial_layers_rank_first_unless_the_saving_pays_the_porting() -> None:
    """With ordinary ops capacity, an option with more partial layers ranks before one with
    fewer only where its total with the porting of its layers is no dearer (porting.py)."""
    plan = plan_for(DOMESTIC_PILOT)
    options = [o for o in plan.options if not o.candidate.already_owned]
    assert options, "the catalog rents domestic cards in China"
    for i, o in enumerate(options):
        for later in options[i + 1 :]:
            if caveats(o) > caveats(later) and tier(plan, o) == tier(plan, later):
                assert option_ranking_total(o) <= option_ranking_total(later) + 1e-6
    assert plan.options[0].candidate.gpu.vendor == "huawei"


def test_porting_is_priced_per_partial_layer_and_said() -> None:
    plan = plan_for(DOMESTIC_PILOT)
    charged = [o for o in plan.options if caveats(o)]
    assert charged
    per_layer = {o.cost.details["porting_cost"] / caveats(o) for o in charged}
    assert len({round(v, 6) for v in per_layer}) == 1  # one price per layer in one plan
    assert any(k == "plan.note_porting_priced" for k, _ in plan.assumptions)


def test_strong_ops_capacity_ranks_caveated_options_by_cost_alone() -> None:
    """A team that ports stacks for a living is not steered away from the cheaper card."""
    plan = plan_for({**DOMESTIC_PILOT, "ops_capacity": "strong"})
    totals = [o.cost.total for o in plan.options if o.sized.speed_known][:3]
    assert plan.options[0].cost.total == min(totals)


def test_a_smaller_sibling_is_never_a_previous_generation() -> None:
    cat = load_catalog()
    siblings = [m.id for m in smaller_siblings(cat, cat.model("llama-3.1-70b"))]
    assert "llama-3.1-8b" in siblings
    assert not [m for m in siblings if m.startswith("llama-2-")], siblings


def test_an_unknown_release_date_keeps_the_sibling() -> None:
    """Only known dates exclude: a family without dates keeps every smaller model."""
    cat = load_catalog()
    model = cat.model("llama-3.1-70b").model_copy(update={"release": None})
    assert any(m.id.startswith("llama-2-") for m in smaller_siblings(cat, model))


def _rule(plan: Plan, rule_id: str) -> dict[str, Any] | None:
    return next((params for rid, params in plan.rules if rid == rule_id), None)


def test_spot_left_out_of_a_service_says_its_users_lose_it() -> None:
    plan = plan_for(
        {
            "workload": {"kind": "serve", "model": "qwen2.5:7b", "concurrency": 8},
            "months": 3,
            "hours_per_day": 24,
            "region": "us",
        }
    )
    params = _rule(plan, "spot-not-for-this-job")
    assert params is not None
    with using_lang("en"):
        assert params["reason_en"] == t("plan.no_spot_service")


def test_the_monthly_billing_line_speaks_only_about_shown_rentals() -> None:
    """Blind w9-04: the line named Tencent's monthly V100s under an answer of hourly H800s."""
    plan = plan_for(
        {
            "workload": {
                "kind": "train",
                "model": "qwen2.5-7b",
                "mode": "full",
                "dataset_tokens": 2e10,
                "seq_len": 4096,
            },
            "months": 1,
            "deadline_days": 30,
            "region": "cn",
            "entity": "company",
        }
    )
    params = _rule(plan, "monthly-billing")
    if params is None:
        return  # none of the shown rentals sells both ways: nothing to say, nothing wrong
    shown = [
        f"{o.candidate.provider.name_en} {o.candidate.offer.instance}"
        for o in plan.options[:5]
        if o.candidate.provider and o.candidate.offer
    ]
    assert params["option"] in shown
