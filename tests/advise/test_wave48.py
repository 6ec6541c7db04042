"""Blind wave 47/48 mechanisms: a server-grade host for a company's 24/7 service (w47-03), the
quality floor of a model shipped compressed (w48-03), the LoRA rank a scenario states (w48-05),
and quantized or re-hosted checkpoints named by their repository (w48-01)."""

from __future__ import annotations

from typing import Any

import pytest

from gpuwise.advise.quality import QUALITY_FLOOR_RISKS, job_floors
from gpuwise.advise.scenario import parse_scenario
from gpuwise.advise.workload import workload_model
from gpuwise.catalog import Catalog
from gpuwise.catalog.reading import read_model_name
from gpuwise.errors import UserError
from tests.advise.invariants import check_plan
from tests.advise.wave_plans import plan_of

SERVICE: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "qwen3-8b", "concurrency": 8,
                 "prompt_tokens": 1000, "gen_tokens": 300},
    "months": 24, "hours_per_day": 24, "region": "us", "currency": "USD",
    "data_may_leave": False,
}  # fmt: skip


def _home_platforms(cat: Catalog) -> set[str]:
    return {p.id for p in cat.extra("host_platform") if p.pue == "home"}


def test_a_companys_24_7_service_buys_no_home_desktop(cat: Catalog) -> None:
    plan = plan_of(cat, {**SERVICE, "entity": "company"})
    bought = [o for o in (*plan.options, *plan.infeasible) if o.candidate.kind == "own"]
    assert bought
    assert not [o.platform for o in bought if o.platform in _home_platforms(cat)]
    ruled = [o for o in bought if any(r == "server-grade-host" for r, _ in o.rules)]
    assert ruled  # said where the rule, not the cards, chose the host


def test_a_person_keeps_the_desktop_and_a_companys_daytime_service_does_not(
    cat: Catalog,
) -> None:
    """A person's machine stays a desktop; a company's service, even in office hours, runs
    on a server-grade host since an entry server costs a few hundred dollars more than a
    desktop (blind w53-01: a law firm's assistant on consumer parts)."""
    person = plan_of(cat, {**SERVICE, "entity": "individual"})
    bought = [o for o in person.options if o.candidate.kind == "own"]
    assert any(o.platform in _home_platforms(cat) for o in bought)
    assert not any(r == "server-grade-host" for o in bought for r, _ in o.rules)
    daytime = plan_of(cat, {**SERVICE, "entity": "company", "hours_per_day": 10})
    bought = [o for o in daytime.options + daytime.infeasible if o.candidate.kind == "own"]
    assert bought and not [o for o in bought if o.platform in _home_platforms(cat)]


def test_floors_never_exceed_the_bits_a_model_ships_in() -> None:
    assert job_floors(8.0, 4.0, None) == (8.0, 4.0)
    assert job_floors(8.0, 4.0, 4.25) == (4.25, 4.0)
    assert job_floors(None, 4.0, 4.25) == (None, 4.0)
    assert job_floors(8.0, 4.0, 16.0) == (8.0, 4.0)


def test_a_batch_on_a_model_shipped_in_mxfp4_is_not_below_its_quality_floor(
    cat: Catalog,
) -> None:
    plan = plan_of(cat, {
        "workload": {"kind": "batch", "model": "gpt-oss-120b", "samples": 100000,
                     "prompt_tokens": 500, "gen_tokens": 2000},
        "deadline_days": 21, "region": "us", "currency": "USD", "entity": "company",
    })  # fmt: skip
    shipped = [o for o in plan.options if o.sized.quant == "mxfp4"]
    assert shipped
    assert not [o for o in shipped for k, _ in o.risks if k in QUALITY_FLOOR_RISKS]


LORA: dict[str, Any] = {
    "workload": {"kind": "train", "model": "llama-3.1-8b", "mode": "lora",
                 "dataset_tokens": 20_000_000, "seq_len": 4096},
    "region": "us", "currency": "USD", "max_gpus": 1,
}  # fmt: skip


def test_the_scenarios_lora_rank_sizes_the_adapters(cat: Catalog) -> None:
    plan16 = plan_of(cat, LORA)
    plan64 = plan_of(cat, {**LORA, "workload": {**LORA["workload"], "lora_rank": 64}})
    by16 = {o.candidate.gpu.id: o for o in plan16.options if o.candidate.kind == "rent"}
    by64 = {o.candidate.gpu.id: o for o in plan64.options if o.candidate.kind == "rent"}
    both = by16.keys() & by64.keys()
    same = [
        (by16[g].sized, by64[g].sized)
        for g in both
        if (by16[g].sized.quant, by16[g].sized.micro_batch, by16[g].sized.grad_checkpointing)
        == (by64[g].sized.quant, by64[g].sized.micro_batch, by64[g].sized.grad_checkpointing)
    ]
    assert same  # the same configuration, only the rank differs
    for a, b in same:
        assert b.memory.inputs["lora_rank"] == 64 and a.memory.inputs["lora_rank"] == 16
        assert b.memory.device_total_bytes > a.memory.device_total_bytes


def test_unknown_lora_targets_name_the_scenario_key() -> None:
    bad = {**LORA, "workload": {**LORA["workload"], "lora_targets": "q,attn"}}
    with pytest.raises(UserError) as e:
        parse_scenario(bad, "t")
    assert e.value.key == "plan.bad_lora_targets"


@pytest.mark.parametrize(
    ("name", "model_id", "fmt"),
    [
        ("Qwen/Qwen3-235B-A22B-FP8", "qwen3-235b-a22b", "fp8"),
        ("Qwen/Qwen3-235B-A22B-Instruct-2507-FP8", "qwen3-235b-a22b-2507", "fp8"),
        ("Qwen/Qwen2.5-72B-Instruct-AWQ", "qwen2.5-72b", "int4-awq"),
        ("RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic", "llama-3.3-70b", "fp8"),
        ("unsloth/Llama-3.3-70B-Instruct-bnb-4bit", "llama-3.3-70b", "nf4"),
    ],
)
def test_a_quantized_checkpoints_repository_is_read_in_its_format(
    cat: Catalog, name: str, model_id: str, fmt: str
) -> None:
    reading = read_model_name(cat, name)
    assert (reading.model.id, reading.model.weight_format_hint) == (model_id, fmt)
    assert read_model_name(cat, name).model is reading.model  # one object per catalog
    assert cat.model(model_id).weight_format_hint != fmt  # the catalog entry is untouched


def test_a_rehosted_copy_resolves_and_an_unknown_one_is_refused(cat: Catalog) -> None:
    assert read_model_name(cat, "unsloth/Qwen3-8B").model.id == "qwen3-8b"
    with pytest.raises(UserError):
        read_model_name(cat, "someone/Not-A-Model-FP8")


def test_the_2507_refresh_has_its_long_context(cat: Catalog) -> None:
    for name in ("Qwen/Qwen3-235B-A22B-Instruct-2507", "Qwen/Qwen3-4B-Thinking-2507"):
        assert cat.model(name).max_context == 262144
    assert cat.model("qwen3-235b-a22b").max_context == 40960
    m = cat.model("mistralai/Mistral-Small-3.2-24B-Instruct-2506")
    assert (m.layers, m.hidden_size, m.kv_heads) == (40, 5120, 8)


def test_a_plan_on_an_fp8_checkpoint_loads_fp8_weights(cat: Catalog) -> None:
    s = parse_scenario({**SERVICE, "workload": {**SERVICE["workload"],
                                                "model": "Qwen/Qwen3-8B-FP8"}}, "t")  # fmt: skip
    assert workload_model(cat, s)[0].weight_format_hint == "fp8"


def test_unpriced_rental_items_rank_at_what_the_other_rentals_pay(cat: Catalog) -> None:
    """Blind w48-05: storage priced on two clouds and unpriced (counted as nothing) on the
    others tilted the ranking toward the others; the ranking now adds the least the others pay."""

    from gpuwise.advise.margin import option_ranking_total

    plan = plan_of(cat, {
        "workload": {"kind": "train", "model": "llama-3.3-70b", "mode": "lora",
                     "dataset_tokens": 300_000_000, "seq_len": 8192, "runs_per_month": 0.3333},
        "deadline_days": 5, "months": 24, "region": "us", "currency": "USD",
        "entity": "company", "data_gb": 200,
    })  # fmt: skip
    rentals = [o for o in (*plan.options, *plan.infeasible) if o.candidate.kind == "rent"]
    priced = [o.cost.items["block_storage"] for o in rentals if "block_storage" in o.cost.items]
    unpriced = [o for o in rentals if "block_storage" in o.cost.unpriced]
    assert priced and unpriced
    for o in unpriced:
        imputed = o.cost.details["unpriced_imputed"]
        assert imputed >= min(priced) - 1e-6
        assert "unpriced_imputed" not in o.cost.items  # the bill still says unpriced
        assert option_ranking_total(o) >= o.cost.total + imputed - 1e-6
    assert any(k == "plan.note_unpriced_imputed" for k, _ in plan.assumptions)


def test_a_card_added_to_an_owned_server_powers_its_host_once(cat: Catalog) -> None:
    """Found by the random-scenario invariant: a card bought for an owned RTX 4060's machine in
    a server room had the host's power on both the kept card's bill and the added card's."""

    plan = plan_of(cat, {
        "workload": {"kind": "local", "model": "qwen2.5:7b", "concurrency": 7, "context": 8192},
        "months": 1, "hours_per_day": 1, "region": "any", "currency": "CNY",
        "data_may_leave": False, "owns": [{"gpu": "rtx-4060", "count": 1}],
        "site": "server-room", "max_gpus": 2,
    })  # fmt: skip
    extended = [o for o in (*plan.options, *plan.infeasible) if o.candidate.owned_kept]
    assert extended
    check_plan(cat, plan)  # electricity within every card's TDP plus one host
