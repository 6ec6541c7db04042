"""Blind waves 59-60 mechanisms: a budget met within the prices' own uncertainty (w59-03), the
host a file-mapping engine needs (w59-03), a region's own price before one quoted elsewhere
(w60-04), `offers --region` taking the plan's region names (w59-01, w60-02), a closed loop of
users never queueing without end for the first token (w60-05), and the faster options the
budget blocks named only within reach and by what breaks the budget (w59-03, w60-05)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from gpuwise.advise.limits import queued_wait
from gpuwise.advise.over_budget import BUDGET_REACH
from gpuwise.advise.regions import find_region, in_region
from gpuwise.catalog import Catalog
from gpuwise.cost.power import assumption
from gpuwise.cost.resolve import make_context
from gpuwise.errors import UserError
from gpuwise.prices import offer_query
from gpuwise.prices.index import build_index
from tests.advise.wave_plans import plan_of

HOME: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "qwq-32b", "engine": "llama.cpp", "concurrency": 1,
                 "prompt_tokens": 16000, "gen_tokens": 800,
                 "target_tokens_per_s_per_request": 15},
    "months": 24, "hours_per_day": 2, "region": "hangzhou", "currency": "CNY",
    "entity": "individual", "acquire": "buy",
}  # fmt: skip
"""w59-03: a person in Hangzhou running QwQ-32B at home through llama.cpp."""


def _own(plan: Any, gpu: str) -> Any:
    every = plan.options + plan.infeasible
    return next(o for o in every if o.candidate.gpu.id == gpu and o.candidate.count == 1)


def test_a_spend_within_the_price_uncertainty_is_at_the_budget(cat: Catalog) -> None:
    free = plan_of(cat, HOME)
    spend = max(_own(free, "rtx-3090").cost.total, sum(
        _own(free, "rtx-3090").cost.items.get(k, 0.0) for k in ("cards", "host")
    ))  # fmt: skip
    margin = assumption(cat, "price_uncertainty_fraction").value
    edge = plan_of(
        cat,
        {**HOME, "budget": {"amount": spend / (1 + margin / 2), "currency": "CNY", "per": "total"}},
    )
    o = _own(edge, "rtx-3090")
    assert o in edge.options and "risk.budget_edge" in {k for k, _ in o.risks}
    over = plan_of(
        cat,
        {**HOME, "budget": {"amount": spend / (1 + 2 * margin), "currency": "CNY", "per": "total"}},
    )
    o = _own(over, "rtx-3090")
    assert o not in over.options and "plan.block_budget" in {k for k, _ in o.blockers}


@pytest.mark.parametrize(("engine", "platform"), [("llama.cpp", "desktop-entry"),
                                                  ("vllm", "desktop")])  # fmt: skip
def test_a_file_mapping_engine_needs_ram_the_size_of_the_vram(
    cat: Catalog, engine: str, platform: str
) -> None:
    """One 24 GB card: llama.cpp maps the model (32 GB of RAM hold it), vLLM loads through
    host memory (RAM twice the VRAM: the 64 GB desktop)."""
    work = {**HOME["workload"], "engine": engine, "model": "qwen3-8b", "prompt_tokens": 4000}
    doc = {**HOME, "workload": work}
    assert _own(plan_of(cat, doc), "rtx-3090").platform == platform


MUMBAI: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "qwen3-14b", "concurrency": 16,
                 "prompt_tokens": 3500, "gen_tokens": 350,
                 "target_tokens_per_s_per_request": 20},
    "months": 18, "hours_per_day": 24, "region": "india", "acquire": "rent",
    "currency": "USD", "entity": "company",
}  # fmt: skip


def test_a_price_quoted_for_the_region_wins_over_a_cheaper_one_quoted_elsewhere(
    cat: Catalog,
) -> None:
    """w60-04: AWS inf2.xlarge was priced at us-east-1's rate in Mumbai, whose own row the
    catalog has (dropped as the same offer, dearer)."""
    plan = plan_of(cat, MUMBAI)
    india = find_region(cat, "india")
    assert india is not None
    rows = [o for o in plan.options + plan.infeasible if o.candidate.provider]
    inf2 = [o for o in rows if o.candidate.offer and o.candidate.offer.instance.startswith("inf2.")]
    assert inf2, "an Inferentia2 rental is sized for the service"
    for o in inf2:
        quoted = o.candidate.offer.price_region or o.candidate.provider.price_region
        assert quoted and in_region(india, quoted), o.candidate.label


def _rows(cat: Catalog, region: str) -> list[Any]:
    ctx = make_context(cat, "USD", dt.date(2026, 12, 7))
    return offer_query.query(build_index(cat), ctx, region=region)


@pytest.mark.parametrize("name", ["us", "uk", "india", "germany", "东京", "hangzhou"])
def test_offers_take_the_region_names_the_plan_takes(cat: Catalog, name: str) -> None:
    region = find_region(cat, name)
    assert region is not None
    rows = _rows(cat, name)
    assert rows, name
    for r in rows:
        quoted = r.price_region or next(
            (p.price_region for p in cat.providers.values() if p.id == r.provider), None
        )
        places = [quoted] if quoted else list(r.regions)
        china = region.kind == "cn" and r.region_kind == "cn" and not r.regions
        assert china or any(in_region(region, c) for c in places), (name, r.instance)


def test_an_unknown_region_is_one_clear_error(cat: Catalog) -> None:
    with pytest.raises(UserError) as err:
        _rows(cat, "narnia")
    assert err.value.key == "offers.unknown_region"


def test_users_who_wait_for_their_answers_never_queue_without_end() -> None:
    """At most `in_flight` prompts in a copy: one user's wait is their own prefill, however
    often the open queue's arithmetic would have them arrive (w60-05)."""
    assert queued_wait(40.0, 0.03) == float("inf")  # open arrivals past the prefill rate
    assert queued_wait(40.0, 0.03, in_flight=1) == 40.0
    assert queued_wait(40.0, 0.03, in_flight=4) == 160.0
    assert queued_wait(0.05, 10.0, in_flight=100) == pytest.approx(0.05 + 0.5 * 0.05 / 1.0)


CODER: dict[str, Any] = {
    "workload": {"kind": "local", "model": "glm-4.5-air", "concurrency": 1,
                 "prompt_tokens": 30000, "cached_prompt_share": 0.85, "gen_tokens": 700,
                 "target_tokens_per_s_per_request": 20, "first_token_s": 30},
    "months": 36, "hours_per_day": 4, "days_per_week": 5, "region": "japan",
    "acquire": "buy", "entity": "individual", "site": "home", "currency": "USD",
    "budget": {"amount": 6000, "currency": "USD", "per": "total"},
    "consider": ["apple-m4-max", "ryzen-ai-max-395", "dgx-spark", "rtx-5090"],
}  # fmt: skip
"""w60-05: one developer's coding agent on her own desk."""


def test_one_user_is_never_blocked_by_a_queue_of_her_own_prompts(cat: Catalog) -> None:
    plan = plan_of(cat, CODER)
    saturated = ("plan.block_prefill_saturated", "plan.block_first_token_saturated")
    for o in plan.options + plan.infeasible:
        assert not {k for k, _ in o.blockers} & set(saturated), o.candidate.label
        assert "risk.prefill_saturated_band" not in {k for k, _ in o.risks}


def test_options_named_over_the_budget_are_within_reach(cat: Catalog) -> None:
    plan = plan_of(cat, {**HOME, "budget": {"amount": 12000, "currency": "CNY", "per": "total"}})
    named = [p for k, p in plan.assumptions if k == "plan.note_over_budget"]
    blocked = {o.candidate.label: o for o in plan.infeasible}
    for params in named:
        for o in blocked.values():
            budget = next((p for k, p in o.blockers if k == "plan.block_budget"), None)
            if budget and budget["spend"] > budget["budget"] * BUDGET_REACH:
                from gpuwise.advise.labels import candidate_words

                assert candidate_words(o.candidate, "en") not in params["items_en"]


def test_an_outlay_over_the_budget_is_named_as_the_outlay(cat: Catalog) -> None:
    """w60-05: '$5,317 in all' named as over a $6,000 budget; the $6,348 paid at once is what
    breaks it."""
    plan = plan_of(cat, CODER)
    named = " ".join(p["items_en"] for k, p in plan.assumptions if k == "plan.note_over_budget")
    up_front = [
        o
        for o in plan.infeasible
        if any(p.get("message_key") == "plan.block_budget_up_front" for _, p in o.blockers)
    ]
    from gpuwise.advise.labels import candidate_words

    for o in up_front:
        if candidate_words(o.candidate, "en") in named:
            assert "at once" in named


def test_accelerator_memory_is_read_in_gib_as_vendors_state_it(cat: Catalog) -> None:
    """w60-04: Inferentia2's 32 GiB was filed as 34.4 (decimal GB) and read as GiB."""
    for gid in ("inferentia2", "trainium", "tpu-v4"):
        matches = [g for g in cat.gpus if g.id == gid]
        if matches:
            assert matches[0].memory_gb == 32


def test_the_domestic_rule_names_only_makers_the_catalog_lists(cat: Catalog) -> None:
    """w60-01: Hygon and MetaX were said to be compared where the catalog has no part of
    theirs."""
    from gpuwise.advise.fired import domestic_vendors

    params = domestic_vendors(cat)
    present = {g.vendor for g in cat.gpus}
    assert "Huawei" in params["listed_en"]
    for maker, name in (("hygon", "Hygon"), ("metax", "MetaX"), ("kunlunxin", "Kunlunxin")):
        where = "listed_en" if maker in present else "missing_en"
        assert name in params[where], (maker, params)


def test_a_region_named_by_a_country_says_the_region_it_stands_for(cat: Catalog) -> None:
    """w60-03: "priced for netherlands" over a list led by Finland."""
    from gpuwise.advise.fired import _region_words

    assert _region_words(cat, "netherlands")["region"] == "netherlands (EU / EEA)"
    assert _region_words(cat, "us")["region"] == "us"


CPT: dict[str, Any] = {
    "workload": {"kind": "train", "model": "mistral-small-3.1-24b", "mode": "full",
                 "dataset_tokens": 40e9, "seq_len": 8192, "batch": 512},
    "months": 1, "deadline_days": 12, "region": "eu", "acquire": "rent", "max_gpus": 32,
    "currency": "EUR", "entity": "company",
}  # fmt: skip
"""w60-02: a Munich startup's continued pre-training of a 24B model, EU rentals, 32 GPUs."""


def test_an_as_fast_layout_with_more_memory_to_spare_wins(cat: Catalog) -> None:
    """w60-02: ZeRO-2 at 75.7 of 80 GiB kept over FSDP at 57.8 GiB at the same speed."""
    plan = plan_of(cat, CPT)
    for o in plan.options:
        if o.candidate.gpu.id == "h100-sxm" and o.candidate.count == 32:
            assert o.sized.strategy != "zero2" or o.sized.memory.device_total_bytes < 70 * 2**30


@pytest.mark.parametrize(("entity", "tariff"), [("company", "uk-business"),
                                                ("individual", "uk-residential")])  # fmt: skip
def test_uk_owners_pay_uk_electricity(cat: Catalog, entity: str, tariff: str) -> None:
    """w59-01: a London broker's owned server paid the US commercial tariff."""
    from gpuwise.cost.power import default_tariff

    payer = "business" if entity == "company" else "household"
    assert default_tariff(cat, "USD", payer, "london") == tariff


def test_a_batch_the_devices_do_not_divide_is_said(cat: Catalog) -> None:
    """w60-02: 512 sequences a step ran as 528 on 24 GPUs, unsaid."""
    plan = plan_of(cat, CPT)
    for o in plan.options + plan.infeasible:
        rule = next((p for k, p in o.rules if k.startswith("micro-batch")), None)
        if rule is None:
            continue
        key = next(k for k, _ in o.rules if k.startswith("micro-batch"))
        divides = 512 % o.sized.count == 0
        assert (key == "micro-batch-rounded") == (not divides and rule["batch"] != 512), key
