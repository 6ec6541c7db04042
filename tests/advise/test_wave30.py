"""Blind wave 30's mechanisms: a public API's spare in a machine of its own, rack sites take
rack hosts, a total budget is what is paid out before any resale, and local use with a long
context says how long a full prompt waits."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from gpuwise.advise.failover import failover_cost, spare_replicas
from gpuwise.advise.limits import paid_at_once
from gpuwise.advise.plan import make_plan
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog

TODAY = dt.date(2026, 12, 2)
API: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "llama-3.1-8b", "concurrency": 32,
                 "prompt_tokens": 4000, "gen_tokens": 300, "target_tokens_per_s_per_request": 30},
    "months": 18, "hours_per_day": 24, "region": "us", "public_api": True, "standby": "hot",
    "currency": "USD", "entity": "company",
}  # fmt: skip


GRID_LORA: dict[str, Any] = {
    "workload": {"kind": "train", "model": "qwen3-14b", "mode": "lora",
                 "dataset_tokens": 50_000_000, "epochs": 3, "seq_len": 4096},
    "months": 3, "deadline_days": 7, "region": "cn", "data_may_leave": False,
    "domestic_only": True, "entity": "company", "site": "server-room", "currency": "CNY",
}  # fmt: skip
"""A 国产化 LoRA run kept on the premises (blind w30-03)."""


def _at_home(
    model: str, context: int, months: float, hours: float, region: str, usd: float
) -> dict[str, Any]:
    """A person's local use at home with a total budget in dollars."""
    return {
        "workload": {"kind": "local", "model": model, "context": context},
        "months": months, "hours_per_day": hours, "region": region, "currency": "USD",
        "entity": "individual", "site": "home",
        "budget": {"amount": usd, "currency": "USD", "per": "total"},
    }  # fmt: skip


def _plan(data: dict[str, Any]) -> Any:
    return make_plan(load_catalog(), parse_scenario(data, "t"), TODAY)


@pytest.fixture(scope="module")
def api() -> Any:
    return _plan(API)


def test_a_spare_beside_copies_in_one_bought_machine_brings_its_own_host(api: Any) -> None:
    """Copies of the model in one bought machine share its host: the public API's spare is
    another machine, so it pays a whole host (or a whole system), not a share of one."""
    checked = 0
    for o in api.options + api.infeasible:
        c = o.candidate
        if c.kind != "own" or c.already_owned or c.nodes > 1 or o.sized.replicas < 2:
            continue
        replicas = o.sized.replicas
        items = o.cost.items
        hardware = sum(
            items.get(k, 0.0)
            for k in ("cards", "host", "system", "maintenance", "resale", "colocation")
        )
        spare = failover_cost(api.scenario, o)
        if c.system is not None:
            assert spare == pytest.approx(hardware), c.label
        else:
            host = items.get("host", 0.0)
            share = spare_replicas(api.scenario, o) / replicas
            assert spare == pytest.approx((hardware - host) * share + host), c.label
            assert spare >= host, c.label
        checked += 1
    assert checked, "no bought option with several copies in one machine"


def test_machines_in_a_rack_are_never_desktop_towers(api: Any) -> None:
    """A public API's own machine sits in a colocation rack: its host is a rack-mountable
    platform (workstation chassis or server), never a desktop tower (blind w30-02)."""
    own = [o for o in api.options + api.infeasible if o.candidate.kind == "own" and o.platform]
    assert own
    desktops = {"desktop", "desktop-entry"}
    assert not [o.candidate.label for o in own if o.platform in desktops]


def test_a_total_budget_pays_for_the_purchase_before_any_resale() -> None:
    """A CNY 2.25M server did not fit a CNY 2M total budget because it resold for 674k three
    months later (blind w30-03): the limit says the total counts on that sale. What is paid at
    once must fit; the project's whole cost, net of the resale, must fit too. (The server is
    now priced from its modules' newer price, CNY 1.57M, and CNY 1.10M net: CNY 1.3M.)"""
    budget = 1_300_000
    plan = _plan({**GRID_LORA, "budget": {"amount": budget, "currency": "CNY", "per": "total"}})
    for o in plan.options:
        assert max(o.cost.total, paid_at_once(plan.scenario, o)) <= budget + 1e-6, o.candidate.label
    blocked = [
        (o, p)
        for o in plan.infeasible
        for k, p in o.blockers
        if k == "plan.block_budget" and p.get("message_key") == "plan.block_budget_up_front"
    ]
    assert blocked, [o.blockers for o in plan.infeasible]
    for o, p in blocked:
        assert (
            p["total"] <= p["budget"] < p["spend"] == pytest.approx(paid_at_once(plan.scenario, o))
        )


def test_local_use_with_a_long_context_says_the_full_prompt_wait() -> None:
    """Local use with a 32k context and no prompt length: the first option's wait for a prompt
    that fills the context is said where it passes the attention limit (blind w30-05)."""
    local = _at_home("qwen3-coder-30b-a3b", 32768, months=24, hours=4, region="global", usd=2500)
    plan = _plan(local)
    first = plan.options[0]
    wait = first.sized.full_context_first_token_s
    assert wait is not None and wait[1] >= wait[0] > 0
    notes = dict(plan.assumptions)
    assert "plan.note_full_context" in notes
    assert notes["plan.note_full_context"]["context"] == 32768
    stated = _plan({**local, "workload": {**local["workload"], "prompt_tokens": 500}})
    assert "plan.note_full_context" not in dict(stated.assumptions)
    assert stated.options[0].sized.full_context_first_token_s is None


def test_a_cloud_reading_far_cheaper_is_said_as_a_share_not_100_percent_less() -> None:
    """A CNY 266 cloud run beside a CNY 1.58M purchase is "0.017% of this answer's total",
    never "100% less" (blind w30-03 read 便宜 100%)."""
    from gpuwise.advise.report import plan_report
    from gpuwise.i18n import set_lang

    plan = _plan(GRID_LORA)
    notes = dict(plan.assumptions)
    assert "plan.note_residency_fraction" in notes, list(notes)
    share = notes["plan.note_residency_fraction"]["share"]
    assert share.endswith("%") and float(share[:-1]) < 1
    set_lang("zh")
    try:
        text = "\n".join(n.text for n in plan_report(load_catalog(), plan, top=3).assumptions)
    finally:
        set_lang("en")
    assert "仅为当前答案的" in text and "100%" not in text


def test_a_single_run_has_no_cost_a_month_in_the_first_line() -> None:
    from gpuwise.advise.report import plan_report

    job = {"kind": "train", "model": "qwen2.5-7b", "mode": "qlora", "dataset_tokens": 20_000_000}
    once = {"workload": job, "region": "us", "currency": "USD"}
    plan = _plan(once)
    assert plan.scenario.one_run_assumed()
    first = plan_report(load_catalog(), plan, top=1).answer_text[0]
    assert "/month" not in first, first
    monthly = _plan({**once, "months": 6, "workload": {**once["workload"], "runs_per_month": 2}})
    assert "/month" in plan_report(load_catalog(), monthly, top=1).answer_text[0]


def test_hipaa_data_rents_only_from_clouds_that_sign_a_baa(api: Any) -> None:
    """`compliance: [hipaa]` (blind w30-02: a US health-tech API compared marketplace hosts as
    equals): rentals only from providers whose BAA covers their GPU instances, and the rule
    says so; without it, the other clouds stay."""
    plan = _plan({**API, "compliance": ["hipaa"]})
    rents = [o for o in plan.options + plan.infeasible if o.candidate.kind == "rent"]
    assert rents
    assert all(o.candidate.provider.hipaa_baa is True for o in rents)
    assert plan.dropped.get("no-hipaa-baa", 0) > 0
    assert "hipaa-baa-only" in dict(plan.rules)
    others = [o for o in api.options + api.infeasible if o.candidate.kind == "rent"]
    assert any(o.candidate.provider.hipaa_baa is not True for o in others)
    assert "hipaa-baa-only" not in dict(api.rules)


def test_a_domestic_preference_names_the_nearest_domestic_option() -> None:
    """domestic_preference_pct with a foreign first option: the first domestic option the plan
    ranks is named with its place and how much more it costs (blind w31-01: it sat 51st)."""
    firm = {
        "workload": {"kind": "serve", "model": "qwen3-32b", "concurrency": 20,
                     "prompt_tokens": 8000, "cached_prompt_share": 0.5, "gen_tokens": 600,
                     "target_tokens_per_s_per_request": 12},
        "months": 36, "hours_per_day": 9, "days_per_week": 5, "region": "cn",
        "domestic_preference_pct": 15, "currency": "CNY", "entity": "company",
    }  # fmt: skip
    plan = _plan(firm)
    notes = dict(plan.assumptions)
    domestic = ("huawei", "hygon", "cambricon", "moorethreads", "biren", "iluvatar", "metax",
                "kunlunxin", "enflame")  # fmt: skip
    first_domestic = next(
        (i for i, o in enumerate(plan.options, 1) if o.candidate.gpu.vendor in domestic), None
    )
    if plan.options[0].candidate.gpu.vendor in domestic:
        assert "plan.note_nearest_domestic" not in notes
    elif first_domestic is None:
        assert "plan.note_no_domestic_ranked" in notes
    else:
        note = notes["plan.note_nearest_domestic"]
        assert note["rank"] == first_domestic
        o = plan.options[first_domestic - 1]
        assert note["more"] == pytest.approx(100 * (o.cost.total / plan.options[0].cost.total - 1))
    assert "plan.note_nearest_domestic" not in dict(
        _plan({**firm, "domestic_preference_pct": None}).assumptions
    )


def test_a_rental_short_at_the_slow_end_is_never_as_good_as_one_that_is_not() -> None:
    """Blind w31-05: 4 cards due in 213-388 h were named "as good" as 8 due in 107 h against
    a 240 h deadline. A tie of the cloud answer is as safe as the answer."""
    from gpuwise.advise.margin import at_risk_of_missing

    batch = {
        "workload": {"kind": "serve", "model": "qwen3-8b", "samples": 50_000_000,
                     "prompt_tokens": 500, "gen_tokens": 20},
        "months": 1, "deadline_days": 10, "region": "cn", "entity": "institution",
        "currency": "CNY", "budget": {"amount": 30000, "currency": "CNY", "per": "total"},
    }  # fmt: skip
    plan = _plan(batch)
    cloud = plan.answers.cloud
    assert cloud is not None
    rent = next(o for o in plan.options if o.candidate.kind == "rent")
    for tie in cloud.ties:
        o = next(
            o
            for o in plan.options
            if o.candidate.provider
            and (o.candidate.provider.id, o.candidate.offer.instance)
            == (tie.provider, tie.instance)
        )
        assert at_risk_of_missing(rent.risks) or not at_risk_of_missing(o.risks), tie


def test_power_over_the_project_does_not_push_a_purchase_that_fits_over_a_total_budget() -> None:
    """Blind w32-05: a hobbyist's USD 4,000 buys two used RTX 3090s and their PC (USD 3,840);
    three years of power come on top but so does the resale: the pair is within the budget,
    and the PC is off when not in use (no idle hours billed for local use)."""
    hobby = _at_home("llama-3.3-70b", 16384, months=36, hours=3, region="us", usd=4000)
    plan = _plan(hobby)
    for o in plan.options:
        assert o.cost.details["idle_hours"] == 0, o.candidate.label
        spend = max(o.cost.total, paid_at_once(plan.scenario, o))
        edge = any(k == "risk.budget_edge" for k, _ in o.risks)  # within the prices' 5%, said
        assert spend <= 4000 + 1e-6 or (edge and spend <= 4000 * 1.05), o.candidate.label
    for o in plan.infeasible:  # nothing within both limits is held back by the budget
        if paid_at_once(plan.scenario, o) <= 4000 and o.cost.total <= 4000:
            assert all(k != "plan.block_budget" for k, _ in o.blockers), o.candidate.label


def test_a_model_cut_below_its_shipped_format_says_what_the_shipped_one_takes() -> None:
    """Blind w32-02: DeepSeek-V3.1 (shipped in FP8) ran at 4 bits on 8 x H800 within the
    default 8 devices, and the FP8 option with 16 was never said. The plan quotes the first
    option at the shipped format with twice the devices, only where max_gpus was left to its
    default."""
    from gpuwise.advise.sized import weight_bits
    from gpuwise.estimate.constants import MemoryConstants

    agents = {
        "workload": {"kind": "serve", "model": "deepseek-v3.1", "concurrency": 32,
                     "prompt_tokens": 6000, "cached_prompt_share": 0.4, "gen_tokens": 800,
                     "target_tokens_per_s_per_request": 10},
        "months": 12, "hours_per_day": 24, "region": "cn", "currency": "CNY",
        "entity": "company", "budget": {"amount": 200000, "currency": "CNY", "per": "month"},
    }  # fmt: skip
    plan = _plan(agents)
    mc = MemoryConstants.from_catalog(load_catalog())
    first = plan.options[0]
    assert weight_bits(mc, first.sized.quant) < 8  # cut below FP8 within 8 devices
    notes = dict(plan.assumptions)
    note = notes["plan.note_native_with_more"]
    assert note["shipped"] == "fp8" and note["most"] == 8 and note["wider"] == 16
    assert 8 < note["devices"] <= 16
    stated = _plan({**agents, "max_gpus": 8})
    assert "plan.note_native_with_more" not in dict(stated.assumptions)


def test_a_24_gb_card_for_local_use_goes_in_the_entry_desktop() -> None:
    """Blind w34-05: one 24 GB card for local chat was given the two-card tower by the "RAM
    at least twice the VRAM" rule; a local runtime maps the model and needs RAM for what it
    fills, not twice it (cost.resolve_host.MMAP_RAM_PER_VRAM). Serving keeps the rule."""
    home = _at_home("qwen3-32b", 8192, months=36, hours=2, region="us", usd=10**6)
    local = _plan(home)
    one_3090 = [o for o in local.options if o.candidate.label == "own:rtx-3090×1"]
    assert one_3090 and one_3090[0].platform == "desktop-entry"
    served = _plan({**home, "workload": {"kind": "serve", "model": "qwen3-32b", "concurrency": 2}})
    hosts = {
        o.platform
        for o in served.options + served.infeasible
        if o.candidate.label == "own:rtx-3090×1"
    }
    assert hosts and "desktop-entry" not in hosts
