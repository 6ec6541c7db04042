"""Regressions for the wrong plans the blind expert scenarios found (h-plan2): embedders planned
as chat models, owned Pascal cards ranked last, a smaller-model fix that skipped sizes, no fix
for two limits at once, a 国产化 plan silent on unpriced domestic rentals, and a public API on
an office GeForce card without its licence and uptime risks."""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from gpuwise.advise.candidates import DOMESTIC_VENDORS
from gpuwise.advise.domestic import domestic_rental_note
from gpuwise.advise.engines import POOLING_GGUF, POOLING_QUANTS, ladder
from gpuwise.advise.fixes import merge_patches, smaller_siblings
from gpuwise.advise.plan import Plan, make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.catalog.precision import format_support
from gpuwise.estimate.constants import MemoryConstants

TODAY = dt.date(2026, 12, 2)


def _plan(data: dict[str, Any]) -> Plan:
    return make_plan(load_catalog(), parse_scenario(data, "t"), TODAY)


def _serve(model: str, **extra: Any) -> dict[str, Any]:
    workload = {"kind": "serve", "model": model, "concurrency": 32, "context": 8192}
    return {"workload": workload, "months": 12, "hours_per_day": 24, "region": "cn", **extra}


def test_embedder_is_timed_by_input_tokens_with_no_kv_and_no_reading_floor() -> None:
    plan = _plan(_serve("bge-m3"))
    assert plan.options
    for o in (*plan.options, *plan.infeasible):
        assert o.sized.pooling
        assert o.sized.tokens_per_s == o.sized.speed.prefill_tokens_per_s
        assert o.sized.speed.decode_tokens_per_s is None
        assert o.sized.memory.breakdown.get("kv_cache", 0.0) == 0.0  # an encoder keeps none
        assert all(k != "plan.block_reading_speed" for k, _ in o.blockers)
    assert "plan.note_pooling" in {k for k, _ in plan.assumptions}


def test_embedder_formats_are_16_bit_not_chat_gguf_files() -> None:
    s = parse_scenario(_serve("bge-m3"), "t")
    assert ladder(s, "vllm", None, pooling=True) == POOLING_QUANTS
    assert ladder(s, "ollama", "q4_k_m", pooling=True) == POOLING_GGUF
    mc = MemoryConstants.from_catalog(load_catalog())
    assert all(mc.weight_format(q).bits_per_weight >= 8 for q in (*POOLING_QUANTS, *POOLING_GGUF))


def test_reranker_target_is_read_as_input_tokens() -> None:
    data = _serve("qwen3-reranker-0.6b")
    data["workload"]["target_tokens_per_s"] = 1000
    plan = _plan(data)
    assert plan.options
    assert all(o.sized.tokens_per_s >= 1000 for o in plan.options)


def test_pascal_llama_cpp_row_is_supported_and_sourced() -> None:
    cat = load_catalog()
    p40 = cat.gpu("tesla-p40")
    for engine in ("llama.cpp", "ollama"):
        verdict = format_support(cat.extra("precision_support"), engine, p40, "gguf")
        assert verdict.support == "yes" and verdict.source == "prec-llamacpp-pascal"


def test_owned_card_with_partial_support_is_not_ranked_below_purchases() -> None:
    # gpt-oss ships MXFP4; llama.cpp's MXFP4 on Pascal is still 'partial' in the catalog
    data = {
        "workload": {"kind": "local", "model": "gpt-oss-20b", "context": 8192},
        "months": 12,
        "hours_per_day": 4,
        "region": "cn",
        "owns": [{"gpu": "tesla-p40", "count": 1}],
        "owns_host": True,
    }
    plan = _plan(data)
    best = plan.options[0]
    assert best.candidate.already_owned, best.candidate.label
    if best.sized.support == "partial":
        assert "risk.format_partial" in {k for k, _ in best.risks}


def test_owned_pascal_serves_with_llama_cpp_when_vllm_cannot() -> None:
    data = _serve("qwen2.5:14b", owns=[{"gpu": "tesla-p40", "count": 2}], owns_host=True)
    data["workload"]["concurrency"] = 2
    plan = _plan(data)
    owned = [o for o in plan.options if o.candidate.already_owned]
    assert owned and owned[0].sized.engine == "llama.cpp"
    assert plan.options[0].candidate.already_owned


def test_smaller_model_fix_tries_each_size_of_the_family() -> None:
    cat = load_catalog()
    sizes = [m.params_b for m in smaller_siblings(cat, cat.model("llama-3.1-70b"))]
    assert sizes[:3] == sorted(sizes[:3], reverse=True)
    assert 8.03 in sizes and 3.21 in sizes  # each size in turn, not halving (which skips sizes)
    assert len(sizes) == len(set(sizes))
    # Llama 2 13B is a previous generation of Llama 3.1 (advise.fixes._previous_generation)
    older = cat.model("llama-3.1-70b").model_copy(update={"release": None})
    assert 13.02 in [m.params_b for m in smaller_siblings(cat, older)]
    eight = next(m for m in smaller_siblings(cat, cat.model("llama-3.1-70b")) if m.params_b == 8.03)
    assert eight.id == "llama-3.1-8b"  # same generation first among equal sizes


def test_smaller_model_keeps_the_task() -> None:
    cat = load_catalog()
    for model_id in ("qwen3-embedding-8b", "qwen3-8b"):
        model = cat.model(model_id)
        assert all(m.task == model.task for m in smaller_siblings(cat, model))


def test_combined_fix_merges_workload_keys() -> None:
    first = {"workload": {"mode": "qlora"}}
    assert merge_patches(first, {"workload": {"model": "x"}}) == {
        "workload": {"mode": "qlora", "model": "x"}
    }
    assert merge_patches(first, {"max_gpus": 64}) == {**first, "max_gpus": 64}


def test_domestic_short_project_names_unpriced_domestic_rentals() -> None:
    """Without a priced domestic rental the plan names the clouds that rent Ascend (Huawei
    first); once one is priced (AutoDL's Ascend 910B2 and MTT S4000 since 2026-12-06) it ranks
    that rental instead and the note goes. The plan is stripped of its domestic rentals to check
    the first half, since the catalog now prices some."""
    data = _serve("qwen2.5:7b", domestic_only=True, months=1)
    plan = _plan(data)
    assert any(_domestic_rental(o) for o in plan.options)
    assert "plan.note_domestic_rentals_unpriced" not in {k for k, _ in plan.assumptions}
    kept = {
        f: [o for o in getattr(plan, f) if not _domestic_rental(o)]
        for f in ("options", "infeasible", "unchecked", "set_aside")
    }
    notes = dict(domestic_rental_note(load_catalog(), dataclasses.replace(plan, **kept)))
    assert notes["plan.note_domestic_rentals_unpriced"]["provider"] == "huawei"
    on_premises = _plan({**data, "data_may_leave": False})
    assert "plan.note_domestic_rentals_unpriced" not in {k for k, _ in on_premises.assumptions}


def _domestic_rental(o: Any) -> bool:
    return bool(o.candidate.kind == "rent" and o.candidate.gpu.vendor in DOMESTIC_VENDORS)


def test_public_api_on_owned_geforce_states_licence_and_uptime_risks() -> None:
    data = _serve(
        "qwen2.5:7b",
        owns=[{"gpu": "rtx-4090", "count": 1}],
        owns_host=True,
        public_api=True,
        entity="company",
    )
    plan = _plan(data)
    owned = [o for o in plan.options if o.candidate.already_owned]
    assert owned
    risks = {k for k, _ in owned[0].risks}
    assert {"risk.geforce_licence", "risk.no_uptime_site"} <= risks
    assert not plan.options[0].candidate.already_owned
    assert "geforce-no-datacenter" in {k for k, _ in plan.rules}
    private = _plan({**data, "public_api": False})
    assert private.options[0].candidate.already_owned
    assert all(k != "risk.geforce_licence" for o in private.options for k, _ in o.risks)


def test_estimate_of_embedder_reports_input_rate_not_decode() -> None:
    from gpuwise.estimate.report import estimate_report
    from gpuwise.estimate.request import MemoryRequest
    from gpuwise.estimate.speed_constants import SpeedConstants

    cat = load_catalog()
    req = MemoryRequest(model=cat.model("bge-m3"), quant="bf16", batch=32, context=512)
    mc, sc = MemoryConstants.from_catalog(cat), SpeedConstants.from_catalog(cat)
    speed = estimate_report(req, mc, cat.gpu("l4"), sc, {"concurrency": 32}).speed
    assert speed is not None
    assert speed["prefill_tokens_per_s"] > 0
    assert "decode_tokens_per_s" not in speed and "serving_tokens_per_s" not in speed


def test_pascal_purchase_states_the_legacy_driver_branch() -> None:
    data = {
        "workload": {"kind": "local", "model": "qwen2.5:14b", "context": 8192},
        "months": 12,
        "hours_per_day": 6,
        "region": "cn",
        "owns": [{"gpu": "tesla-p40", "count": 1}],
        "owns_host": True,
    }
    plan = _plan(data)
    pascal = [o for o in plan.options if o.candidate.gpu.architecture == "Pascal"]
    assert pascal
    assert all("risk.legacy_driver" in {k for k, _ in o.risks} for o in pascal)
    ada = [o for o in plan.options if o.candidate.gpu.architecture == "Ada Lovelace"]
    assert all("risk.legacy_driver" not in {k for k, _ in o.risks} for o in ada)


def test_a_service_on_several_owned_cards_runs_a_copy_per_card_when_that_meets_the_floor() -> None:
    """Regression (merge of the error band with owned P40s): one P40 met the reading-speed floor
    only at its central estimate, and the four the lab owns were dropped as "more devices, not
    faster" because the only multi-card layout tried was one model split across PCIe cards. Copies
    of the model (one llama.cpp server per card) each serve their share of the users."""
    data = {
        "workload": {"kind": "serve", "model": "qwen2.5:14b", "concurrency": 4, "context": 8192},
        "months": 12,
        "hours_per_day": 8,
        "region": "cn",
        "owns": [{"gpu": "tesla-p40", "count": 4}],
        "owns_host": True,
    }
    plan = make_plan(load_catalog(), parse_scenario(data, "test"), TODAY)
    top = plan.options[0]
    assert top.candidate.already_owned and top.candidate.gpu.id == "tesla-p40"
    several = [
        o for o in plan.options if o.candidate.gpu.id == "tesla-p40" and o.candidate.count > 1
    ]
    assert several, "more owned P40s were dropped as not faster"
    for o in several:  # each copy on one card: nothing crosses PCIe
        assert o.sized.replicas == o.candidate.count and o.sized.strategy == "none"


def test_a_public_api_is_not_answered_with_a_machine_at_home_or_in_an_office() -> None:
    """Regression: a company's 24/7 public API was answered "buy 4 × T4" (a data-centre card,
    so no licence risk) to sit in its office: an office has no redundant power or network and
    nobody on call. Owned machines at home or in an office rank after data-centre rentals for a
    public API; in a data centre (site: datacenter) they compete on price again."""
    data: dict[str, Any] = {
        "workload": {
            "kind": "serve",
            "model": "llama3.1:8b",
            "concurrency": 16,
            "context": 8192,
            "target_tokens_per_s": 300,
        },
        "months": 12,
        "hours_per_day": 24,
        "region": "us",
        "currency": "USD",
        "entity": "company",
        "public_api": True,
    }
    cat = load_catalog()
    top = make_plan(cat, parse_scenario({**data, "site": "office"}, "test"), TODAY).options[0]
    assert top.candidate.kind == "rent"
    colocated = make_plan(cat, parse_scenario({**data, "site": "datacenter"}, "test"), TODAY)
    # ranked again; no longer in the first three for an 8B model since a rack takes a rack host
    # and the spare a machine of its own (blind w30-02): two reserved T4 instances cost less
    assert any(o.candidate.kind == "own" for o in colocated.options)
    # a company that says no site buys into a colocation rack (blind w22-02), never an office
    unsaid = make_plan(cat, parse_scenario(data, "test"), TODAY).options[0]
    assert unsaid.candidate.kind == "rent" or unsaid.cost.items.get("colocation", 0) > 0


def test_a_person_at_home_is_not_sold_a_rack_server_for_local_chat() -> None:
    """Regression: cheap used passive data-centre cards (Tesla P100/P40, which need a server's
    forced airflow) won local chat for people at home on price, in a loud kilowatt-class rack
    server. At home such a purchase ranks after a desktop card, a Mac or a rental."""
    data = {"workload": {"kind": "local", "model": "qwen3"}, "region": "us", "currency": "USD"}
    plan = make_plan(load_catalog(), parse_scenario(data, "test"), TODAY)
    top = plan.options[0]
    assert not any(k == "risk.server_site" for k, _ in top.risks), top.candidate.label


def test_every_unpriced_item_a_plan_can_name_has_words_in_both_languages() -> None:
    """Regression: owned machines joined into one job list the network between them as
    unpriced; its key had no message and `cost.item.network` reached the headline."""
    from gpuwise.i18n import messages

    table = messages()
    for item in ("network", "block_storage", "egress", "public_ip", "electricity"):
        entry = table[f"cost.item.{item}"]
        assert entry["en"] and entry["zh"], item
