"""Mechanisms mended after blind waves 34 and 35: an owned card a little short of a target is
kept in sight and extended in its own PC; a country is its own region; a platform with no
stop keeps a part-day service running; the table shows distinct choices; porting work is
said on rented chips too."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from gpuwise.advise.plan import Plan, make_plan
from gpuwise.advise.regions import find_region, in_region, price_region
from gpuwise.advise.report import plan_report
from gpuwise.advise.scenario import parse_scenario
from gpuwise.advise.table_rows import table_rows
from gpuwise.catalog import Catalog, load_catalog
from gpuwise.catalog.schema_cloud import HOURS_PER_MONTH
from gpuwise.cost.power import region_chain

TODAY = dt.date(2026, 12, 7)

OWNED_3090: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "mistral-small-3.1-24b", "concurrency": 5,
                 "prompt_tokens": 2000, "gen_tokens": 400,
                 "target_tokens_per_s_per_request": 20},
    "months": 24, "hours_per_day": 9, "days_per_week": 5, "region": "eu", "site": "office",
    "owns": [{"gpu": "rtx-3090", "count": 1}], "owns_host": True, "currency": "EUR",
}  # fmt: skip


def _plan(cat: Catalog, data: dict[str, Any]) -> Plan:
    return make_plan(cat, parse_scenario(data, "t"), TODAY)


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


def test_a_person_is_offered_a_second_owned_card_in_the_same_pc(cat: Catalog) -> None:
    """Blind w34-04: the owned RTX 3090 holds the model but is short of the target; the
    expert adds a second (used) 3090 to the same PC for tensor parallelism."""
    plan = _plan(cat, {**OWNED_3090, "entity": "individual"})
    same = [o for o in plan.options if o.candidate.owned_kept == (("rtx-3090", 1),)]
    same = [o for o in same if o.candidate.gpu.id == "rtx-3090"]
    assert same, [o.candidate.label for o in plan.options[:8]]
    first = same[0]
    rule = dict(first.rules)["owned-extend-same"]
    assert rule["devices"] == 2 and rule["tokens_per_s"] > rule["owned_tokens_per_s"]
    assert "host" not in first.cost.items or first.cost.items["host"] == 0
    assert plan.options.index(first) == 0  # cheaper than any new card for the same target


def test_a_company_keeps_the_short_card_in_sight(cat: Catalog) -> None:
    """A company buys no RTX 3090 or 4090 (no longer made): the owned card's shortfall and its
    cost beside the first option are said, not 'sell them'."""
    plan = _plan(cat, {**OWNED_3090, "entity": "company"})
    bought = [o.candidate for o in plan.options if o.candidate.kind == "own"]
    bought = [c for c in bought if not (c.already_owned or c.owned_kept or c.beside_owned)]
    assert bought and all(c.gpu.id not in ("rtx-4090", "rtx-3090") for c in bought)
    notes = dict(plan.assumptions)
    assert "plan.note_owned_short" in notes
    short = notes["plan.note_owned_short"]
    assert 0 < short["pct"] < 50 and short["low"] < short["target"] <= short["high"]
    assert "plan.note_owned_unused_unfit" not in notes
    assert "no-longer-made" in dict(plan.rules)


def test_a_country_is_planned_on_offers_priced_in_it(cat: Catalog) -> None:
    """Blind w35-02: 'india' was Asia-Pacific, and a Tokyo VM ranked first."""
    india = find_region(cat, "india")
    assert india is not None and india.id == "india" and india.within == "asia-pacific"
    assert not in_region(india, "ap-northeast-1") and in_region(india, "asia-south1")
    data = {
        "workload": {"kind": "serve", "model": "qwen3-14b", "samples": 40000,
                     "prompt_tokens": 4000, "gen_tokens": 400, "concurrency": 64,
                     "runs_per_month": 30},
        "months": 12, "deadline_days": 0.25, "region": "india", "entity": "company",
        "currency": "USD", "allow_spot": True,
    }  # fmt: skip
    plan = _plan(cat, data)
    rented = [o for o in plan.options if o.candidate.kind == "rent"]
    assert rented
    for o in rented:
        assert o.candidate.provider is not None and o.candidate.offer is not None
        quoted = price_region(o.candidate.provider, o.candidate.offer)
        codes = [quoted] if quoted else o.candidate.offer.regions
        if any(k == "risk.priced_elsewhere" for k, _ in o.risks):  # sold in India, said
            codes = o.candidate.offer.regions
        assert any(in_region(india, c) for c in codes), o.candidate.label
    assert region_chain(cat, "japan", "USD")[:2] == ["japan", "asia-pacific"]


def test_a_platform_with_no_stop_keeps_a_part_day_service_running(cat: Catalog) -> None:
    """Blind w35-04: Lambda instances are only terminated; a 10 h a day service there is
    priced around the clock, with the rule saying what a daily relaunch would save."""
    data = {
        "workload": {"kind": "serve", "model": "gpt-oss-120b", "concurrency": 40,
                     "prompt_tokens": 1500, "gen_tokens": 500,
                     "target_tokens_per_s_per_request": 30},
        "months": 24, "hours_per_day": 10, "days_per_week": 5, "region": "us",
        "entity": "company", "currency": "USD", "max_gpus": 8,
    }  # fmt: skip
    plan = _plan(cat, data)
    lambda_ = [
        o
        for o in [*plan.options, *plan.infeasible]
        if o.candidate.provider is not None and o.candidate.provider.id == "lambda"
        and o.candidate.billing == "on-demand"
    ]  # fmt: skip
    assert lambda_
    for o in lambda_:
        assert o.busy_hours_per_month == pytest.approx(HOURS_PER_MONTH)
    ruled = [o for o in lambda_ if "kept-running-no-stop" in dict(o.rules)]
    assert ruled


def test_the_table_shows_distinct_choices_and_says_what_it_skips(cat: Catalog) -> None:
    """Blind w35-05: five sizes of one Ascend offer filled the top five."""
    data = {
        "workload": {"kind": "train", "model": "qwen2.5-1.5b", "mode": "full",
                     "dataset_tokens": "20B", "seq_len": 4096, "epochs": 1, "batch": 512},
        "deadline_days": 14, "region": "cn", "entity": "company", "currency": "CNY",
        "budget": {"amount": 150000, "currency": "CNY", "per": "total"},
    }  # fmt: skip
    plan = _plan(cat, data)
    rows = table_rows(plan.options, 5)
    families: dict[tuple[object, ...], int] = {}
    for _, o in rows:
        c = o.candidate
        key = (c.kind, c.provider.id if c.provider else "", c.gpu.id, c.billing)
        families[key] = families.get(key, 0) + 1
    assert max(families.values()) <= 2 and len(families) >= 3
    assert rows[0] == (1, plan.options[0])
    report = plan_report(cat, plan, 5)
    assert [o.rank for o in report.options] == [r for r, _ in rows]
    if rows[-1][0] > len(rows):
        assert any(a.id == "plan.note_rows_skipped" for a in report.assumptions)
    ascend = [o for o in plan.options if o.candidate.gpu.vendor == "huawei"]
    assert ascend and all("risk.ecosystem" in dict(o.risks) for o in ascend)


def test_a_server_of_copies_keeps_its_spare_inside(cat: Catalog) -> None:
    """Blind w36-03: one DGX serving a public API as copies bought a second DGX as its spare.
    Where the server's other copies carry the target with one down, the spare is one of its
    own copies (the host's faults said as a risk); where they do not, a whole second system."""
    data = {
        "workload": {"kind": "serve", "model": "llama-3.3-70b", "concurrency": 64,
                     "prompt_tokens": 1500, "gen_tokens": 300,
                     "target_tokens_per_s_per_request": 20},
        "months": 36, "hours_per_day": 24, "region": "us", "public_api": True,
        "entity": "company", "currency": "USD", "ops_capacity": "strong", "max_gpus": 8,
    }  # fmt: skip
    plan = _plan(cat, data)
    target = 64 * 20
    systems = [o for o in plan.options if o.candidate.system is not None]
    assert systems
    inside = [o for o in systems if "risk.spare_same_server" in dict(o.risks)]
    assert inside, [o.candidate.label for o in systems]
    for o in systems:
        r = o.sized.replicas
        if o in inside:
            assert "failover_replica" not in o.cost.items
            assert o.sized.tokens_per_s * (r - 1) / r >= target
        else:
            assert o.cost.items.get("failover_replica", 0) > 0


def test_an_owned_shortfall_is_priced_as_the_hardware_it_would_add() -> None:
    """Blind w37-04: two owned cards 1.5x short at the slow end were ranked at their power bill
    times 1.5. The shortfall is now the cards it would add, at the owned cards' market value:
    4 cards where 2 are owned (whole cards), so one more owned fleet's worth."""
    from gpuwise.advise.margin import owned_ranking_total

    risks = [("risk.throughput_band", {"factor": 1.51})]
    assert owned_ranking_total(625.0, risks, 2, 3000.0) == pytest.approx(625.0 + 3000.0)
    assert owned_ranking_total(625.0, [], 2, 3000.0) == pytest.approx(625.0)
    no_value = owned_ranking_total(625.0, risks, 2, None)
    assert no_value == pytest.approx(625.0 * 2.0)  # whole cards, the running cost scaled


def test_an_owned_server_in_a_server_room_draws_its_host_power(cat: Catalog) -> None:
    """Blind w36-04: eight owned A100s in a server room were charged their cards' power only.
    A PC at home or in the office runs anyway (its host is not charged); a server that stands
    in a server room runs for the job."""
    from gpuwise.cost.resolve import Context, OwnOptions, make_context, resolve_own

    usd: Context = make_context(cat, "USD", TODAY)
    room = resolve_own(cat, usd, "a100-40gb", 4, OwnOptions(owned=True, host_owned=True,
                                                             site="server-room"))  # fmt: skip
    office = resolve_own(cat, usd, "a100-40gb", 4, OwnOptions(owned=True, host_owned=True,
                                                              site="office"))  # fmt: skip
    assert room.spec.host_load_w and room.spec.host_load_w > 0
    assert office.spec.host_load_w == 0
    assert any(n.key == "cost.note_host_not_charged" for n in office.notes)
    assert not any(n.key == "cost.note_host_not_charged" for n in room.notes)


def test_a_public_api_server_of_small_copies_keeps_its_spare_inside(cat: Catalog) -> None:
    """Blind w38-05: an 8B model ran as two 16-bit copies of 4 GPUs on an 8-GPU server, so its
    spare was a second server; eight 8-bit copies carry the target with one down."""
    data = {
        "workload": {"kind": "serve", "model": "llama-3.1-8b", "concurrency": 330,
                     "prompt_tokens": 1500, "cached_prompt_share": 0.6, "gen_tokens": 120,
                     "target_tokens_per_s_per_request": 40},
        "months": 36, "hours_per_day": 24, "region": "us", "entity": "company",
        "public_api": True, "currency": "USD",
    }  # fmt: skip
    plan = _plan(cat, data)
    hgx = [
        o for o in plan.options if o.candidate.system and o.candidate.system.id == "hgx-h100-8gpu"
    ]
    assert hgx
    o = hgx[0]
    assert o.sized.replicas >= 4 and "failover_replica" not in o.cost.items
    assert "risk.spare_same_server" in dict(o.risks)


def test_joined_spot_machines_pay_each_others_interruptions() -> None:
    """Blind w38-03: 2 and 8 spot machines of one training job showed the same rework. Any
    reclaim stops the whole job: rework grows with the machines squared, replicas do not."""
    from gpuwise.advise.evaluate import machines
    from gpuwise.cost.model import CostOption

    one = CostOption(
        label="x", kind="rent", currency="USD", months=1.0,
        items={"compute": 100.0, "spot_rework": 2.0}, details={"interruptions": 1.5},
    )  # fmt: skip
    joined = machines(one, 8, own=False, joined=True)
    apart = machines(one, 8, own=False, joined=False)
    assert joined.items["compute"] == apart.items["compute"] == 800.0
    assert apart.items["spot_rework"] == 16.0 and joined.items["spot_rework"] == 128.0
    assert joined.details["interruptions"] == 12.0


def test_a_fused_or_framework_loss_holds_no_full_fp32_logits(cat: Catalog) -> None:
    """Blind w39-01: a full fine-tune under Megatron or Liger kernels was charged the full fp32
    logits Hugging Face's eager loss builds; a fused or vocabulary-parallel loss never does."""
    from gpuwise.estimate.constants import MemoryConstants
    from gpuwise.estimate.memory import estimate_memory
    from gpuwise.estimate.request import MemoryRequest

    mc = MemoryConstants.from_catalog(cat)
    req = MemoryRequest(model=cat.model("qwen3-30b-a3b"), mode="full", batch=2, seq_len=4096,
                        gpus=8, strategy="zero3")  # fmt: skip
    eager = estimate_memory(req, mc).breakdown["logits"]
    fused = estimate_memory(req.with_(fused_loss=True), mc).breakdown["logits"]
    assert fused < eager / 2


def test_an_offer_sold_by_the_node_is_rented_a_node_at_a_time(cat: Catalog) -> None:
    """Blind w40-03: TensorWave quotes MI300X per GPU but rents whole 8-GPU nodes; one GPU of
    it stopped each night ranked first. The offer's `node_gpus` makes it 8 devices at 8 × the
    per-GPU rate."""
    from gpuwise.advise.candidates import offer_devices
    from gpuwise.cost.resolve import make_context
    from gpuwise.cost.resolve_rent import resolve_rent

    offer = next(o for o in cat.offers if o.provider == "tensorwave" and o.gpu == "mi300x")
    assert offer.node_gpus == 8 and offer.gpu_count == 1
    assert offer_devices(offer, cat.gpu("mi300x")) == 8
    usd = make_context(cat, "USD", TODAY)
    rent = resolve_rent(cat, usd, f"tensorwave:{offer.instance}:on-demand")
    per_gpu = next(p.amount for p in offer.prices if p.billing == "on-demand")
    assert rent.spec.gpu_count == 8
    assert rent.spec.price == pytest.approx(8 * usd.money(per_gpu, "USD"))


def test_the_plan_memo_keeps_languages_and_set_defaults_apart(cat: Catalog) -> None:
    """make_plan remembers its last plans: a repeat is the same plan, but a plan made in
    another language (a few notes word themselves as it is made) or with a default written
    out (max_gpus: 8 reads differently from none) is made again."""
    from gpuwise.i18n import using_lang

    data = {"workload": {"kind": "local", "model": "qwen3-8b"}, "region": "us"}
    with using_lang("en"):
        first = _plan(cat, data)
        assert _plan(cat, data) is first
        assert _plan(cat, {**data, "max_gpus": 8}) is not first
    with using_lang("zh"):
        assert _plan(cat, data) is not first
