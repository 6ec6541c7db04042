"""Blind wave 49 mechanisms: owned cards as they sit in their machines (w49-05), rented
machines joined over an unpublished network (w49-02), an offer whose machine is unconfirmed
(w49-03), and a person's porting time (w49-04)."""

from __future__ import annotations

from typing import Any

import pytest

from gpuwise.advise.ranking import rank_key, rented_cluster_unknown
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import Catalog
from tests.advise.wave_plans import plan_of

OWNED: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "qwen3-30b-a3b", "concurrency": 16,
                 "prompt_tokens": 2000, "gen_tokens": 400},
    "months": 24, "hours_per_day": 10, "region": "cn", "currency": "CNY", "entity": "company",
    "site": "server-room", "data_may_leave": False,
}  # fmt: skip


def _owned_layouts(plan: Any) -> set[tuple[int, int]]:
    every = (*plan.options, *plan.infeasible, *plan.unchecked)
    return {(o.candidate.nodes, o.candidate.cards) for o in every if o.candidate.already_owned}


def test_owned_cards_sit_as_many_to_a_machine_as_the_user_says(cat: Catalog) -> None:
    stated = plan_of(cat, {**OWNED, "owns": [{"gpu": "rtx-4090", "count": 8, "per_machine": 4}]})
    assert (2, 4) in _owned_layouts(stated)  # two 4-card servers joined
    assert (1, 4) in _owned_layouts(stated)  # one of them alone
    assert not any(k == "plan.note_owned_per_machine" for k, _ in stated.assumptions)
    assumed = plan_of(cat, {**OWNED, "owns": [{"gpu": "rtx-4090", "count": 8}]})
    per_host = cat.gpu("rtx-4090").max_per_host
    assert per_host is not None and per_host < 4
    assert (8 // per_host, per_host) in _owned_layouts(assumed)
    said = [p for k, p in assumed.assumptions if k == "plan.note_owned_per_machine"]
    assert said and said[0]["per_host"] == per_host


def test_a_bare_number_is_a_tariff() -> None:
    s = parse_scenario({**OWNED, "tariff": 0.75}, "t")
    assert s.tariff == "0.75"


PRETRAIN: dict[str, Any] = {
    "workload": {"kind": "train", "model": "llama-3.2-3b", "mode": "full",
                 "dataset_tokens": 100_000_000_000, "seq_len": 4096},
    "deadline_days": 30, "region": "eu", "currency": "EUR", "entity": "institution",
    "max_gpus": 64,
}  # fmt: skip


def test_rentals_joined_over_an_unpublished_network_rank_after_the_others(cat: Catalog) -> None:
    plan = plan_of(cat, PRETRAIN)
    key = rank_key(plan.scenario)
    unknown = [o for o in plan.options if rented_cluster_unknown(plan.scenario, o)]
    assert unknown and not rented_cluster_unknown(plan.scenario, plan.options[0])
    for o in unknown:
        assert o.sized.network_assumed and o.candidate.nodes > 1 and key(o)[5] is True
        peers = [k for k in plan.options if key(k)[:5] == key(o)[:5] and not key(k)[5]]
        assert all(plan.options.index(k) < plan.options.index(o) for k in peers)


def test_an_offer_whose_machine_is_unconfirmed_says_so(cat: Catalog) -> None:
    plan = plan_of(cat, {
        "workload": {"kind": "serve", "model": "qwen3-30b-a3b", "concurrency": 40,
                     "prompt_tokens": 8000, "gen_tokens": 400,
                     "target_tokens_per_s_per_request": 30},
        "months": 24, "hours_per_day": 10, "days_per_week": 5, "region": "asia-pacific",
        "currency": "USD", "entity": "company",
    })  # fmt: skip
    flagged = [
        o
        for o in (*plan.options, *plan.infeasible)
        if o.candidate.offer is not None and o.candidate.offer.machine_unconfirmed
    ]
    assert flagged
    assert all(any(k == "risk.machine_unconfirmed" for k, _ in o.risks) for o in flagged)


def test_a_persons_porting_is_a_risk_not_a_wage(cat: Catalog) -> None:
    base = {
        "workload": {"kind": "local", "model": "gpt-oss-120b", "context": 65536,
                     "prompt_tokens": 60000},
        "months": 36, "hours_per_day": 4, "region": "us", "currency": "USD",
        "data_may_leave": False, "consider": ["ryzen-ai-max-395"],
    }  # fmt: skip
    person = plan_of(cat, {**base, "entity": "individual"})
    company = plan_of(cat, {**base, "entity": "company"})

    def ryzen(p: Any) -> Any:
        every = (*p.options, *p.infeasible, *p.unchecked)
        return next(o for o in every if o.candidate.gpu.id == "ryzen-ai-max-395")

    assert "porting_cost" not in ryzen(person).cost.details
    assert any(k == "risk.ecosystem" for k, _ in ryzen(person).risks)
    assert ryzen(company).cost.details.get("porting_cost", 0.0) > 0


def test_a_card_without_the_shipped_format_runs_a_requantized_copy(cat: Catalog) -> None:
    """Blind w49-01: DeepSeek-V4-Flash ships MXFP4 experts, which Ascend does not run; every
    Ascend option vanished with no line. vllm-ascend serves it from a W8A8 copy: the options
    are sized in a format the card runs, with the risk that says a copy is needed."""
    plan = plan_of(cat, {
        "workload": {"kind": "serve", "model": "deepseek-v4-flash", "concurrency": 60,
                     "prompt_tokens": 3000, "gen_tokens": 500},
        "months": 36, "hours_per_day": 24, "region": "cn", "currency": "CNY",
        "entity": "company", "domestic_only": True,
    })  # fmt: skip
    ascend = [o for o in (*plan.options, *plan.infeasible) if o.candidate.gpu.vendor == "huawei"]
    assert ascend
    native = cat.model("deepseek-v4-flash").weight_format_hint
    for o in ascend:
        assert o.sized.quant != native
        said = [p for k, p in o.risks if k == "risk.requantized_checkpoint"]
        assert said and said[0]["native"] == native


def test_a_long_local_prompt_says_its_first_token_wait(cat: Catalog) -> None:
    """Blind w49-04: a stated 60k-token local prompt's wait appeared only with first_token_s."""
    plan = plan_of(cat, {
        "workload": {"kind": "local", "model": "gpt-oss-120b", "context": 65536,
                     "prompt_tokens": 60000},
        "months": 36, "hours_per_day": 4, "region": "us", "currency": "USD",
        "entity": "individual", "data_may_leave": False,
    })  # fmt: skip
    said = [p for k, p in plan.assumptions if k == "plan.note_first_token"]
    assert said and said[0]["prompt"] == 60000
    first = plan.options[0].sized.speed
    assert said[0]["seconds"] == pytest.approx(first.time_to_first_token_s)


def test_a_model_runs_only_where_its_engine_has_its_kernels(cat: Catalog) -> None:
    """Blind w49-01: DeepSeek-V4-Flash was planned on SM120 cards, where no mainline vLLM has
    its DeepGEMM/FlashMLA kernels (sourced: vLLM issues 40851, 40928)."""
    from gpuwise.estimate.speed_keys import kernel_arch

    model = cat.model("deepseek-v4-flash")
    allowed = model.engine_architectures["vllm"]
    plan = plan_of(cat, {
        "workload": {"kind": "serve", "model": "deepseek-v4-flash", "concurrency": 60,
                     "prompt_tokens": 3000, "gen_tokens": 500},
        "months": 36, "hours_per_day": 24, "region": "us", "currency": "USD",
        "entity": "company", "max_gpus": 16,
    })  # fmt: skip
    cuda = [
        o
        for o in (*plan.options, *plan.infeasible)
        if " sm_" in kernel_arch(o.candidate.gpu) and o.sized.engine == "vllm"
    ]
    assert cuda
    assert all(kernel_arch(o.candidate.gpu) in allowed for o in cuda)
    assert "rtx-pro-6000-blackwell" in plan.refused
    said = [p for k, p in plan.assumptions if k == "plan.note_cards_refused"]
    assert said and "has no kernels for DeepSeek-V4-Flash" in said[0]["cards_en"]
