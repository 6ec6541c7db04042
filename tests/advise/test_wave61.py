"""Blind wave 61 mechanisms: each billing mode of a repeated instance won on its own (w61-04:
Jakarta's on-demand row lost to a us-east-1 row that alone sold spot), the spare named in the
answer (w61-01), a cheaper answer with more devices quoted where the default cap binds
(w61-05)."""

from __future__ import annotations

from typing import Any

from gpuwise.advise.regions import find_region, in_region
from gpuwise.advise.report import _card_line
from gpuwise.catalog import Catalog
from tests.advise.wave_plans import plan_of

THESIS: dict[str, Any] = {
    "workload": {"kind": "train", "model": "qwen3-14b", "mode": "qlora", "lora_rank": 16,
                 "dataset_tokens": 10_000_000, "seq_len": 2048, "epochs": 2,
                 "runs_per_month": 4},
    "months": 1, "deadline_days": 3, "region": "ap-southeast-3",
    "budget": {"amount": 250, "currency": "USD", "per": "total"},
    "currency": "USD", "entity": "individual",
}  # fmt: skip
"""w61-04: a student's QLoRA runs, named to AWS Jakarta."""


def test_a_mode_priced_in_the_region_is_not_taken_from_a_row_priced_elsewhere(
    cat: Catalog,
) -> None:
    plan = plan_of(cat, THESIS)
    jakarta = find_region(cat, "ap-southeast-3")
    assert jakarta is not None
    g5 = [
        o
        for o in plan.options + plan.infeasible
        if o.candidate.offer and o.candidate.offer.instance.startswith("g5.xlarge")
    ]
    by_billing = {o.candidate.billing: o for o in g5}
    assert "on-demand" in by_billing
    od = by_billing["on-demand"].candidate
    quoted = od.offer.price_region or od.provider.price_region
    assert quoted and in_region(jakarta, quoted)  # the Jakarta row's own price


SEARCH: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "bge-m3", "prompt_tokens": 24, "gen_tokens": 0,
                 "concurrency": 64, "target_tokens_per_s": 52000,
                 "companions": [{"model": "bge-reranker-v2-m3", "tokens_per_s": 5_380_000}]},
    "months": 36, "hours_per_day": 24, "region": "japan", "public_api": True,
    "currency": "USD", "entity": "company", "site": "datacenter",
    "budget": {"amount": 33000, "currency": "USD", "per": "month"},
}  # fmt: skip
"""w61-05: a Tokyo marketplace's search embedder and reranker at 5.4M tokens/s."""


def test_a_cheaper_answer_past_the_default_cap_is_quoted(cat: Catalog) -> None:
    plan = plan_of(cat, SEARCH)
    notes = [p for k, p in plan.assumptions if k.startswith("plan.note_copies_with_more")]
    first = plan.options[0]
    devices = (first.candidate.cards or first.candidate.count) * max(1, first.candidate.nodes)
    if devices >= 8:  # the answer fills the default cap: the wider plan is tried
        wider = plan_of(cat, {**SEARCH, "max_gpus": 32})
        if wider.options and wider.options[0].cost.total < first.cost.total * 0.95:
            assert notes and notes[0]["ratio"] < 0.95
    stated = plan_of(cat, {**SEARCH, "max_gpus": 8})
    assert not [k for k, _ in stated.assumptions if k.startswith("plan.note_copies_with_more")]


def test_the_answer_names_the_spare_it_pays_for(cat: Catalog) -> None:
    plan = plan_of(cat, SEARCH)
    a, first = plan.answers, plan.options[0]
    if first.spare_replicas:
        assert a.spare_count > 0
        line = _card_line(cat, first.candidate, first.candidate.gpu.name, a)
        assert "spare" in line and str(a.spare_count) in line


BATCH: dict[str, Any] = {
    "workload": {"kind": "batch", "model": "llama-3.3-70b", "samples": 4_000_000,
                 "prompt_tokens": 1100, "cached_prompt_share": 0.75, "gen_tokens": 110},
    "deadline_days": 7, "region": "us", "currency": "USD", "entity": "company",
    "budget": {"amount": 3000, "currency": "USD", "per": "total"}, "allow_spot": True,
}  # fmt: skip
"""w61-02: an indie studio's 4M one-off generations."""


def test_a_batch_keeps_the_less_compressed_layout_within_five_per_cent(cat: Catalog) -> None:
    """Two FP8 copies were taken over one BF16 copy 1.7% slower, with a quality caveat."""
    from gpuwise.advise.sized import weight_bits
    from gpuwise.estimate.constants import MemoryConstants

    plan = plan_of(cat, BATCH)
    mc = MemoryConstants.from_catalog(cat)
    a100 = [o for o in plan.options if o.candidate.gpu.id == "a100-40gb"]
    assert a100
    assert weight_bits(mc, a100[0].sized.quant) >= 16  # one 16-bit copy, 1.7% slower


def test_copies_on_one_machine_share_the_companions_load(cat: Catalog) -> None:
    """Each of 8 copies had been given the whole reranker load: only one copy split over 8
    cards carried it, and its spare was a second DGX."""
    plan = plan_of(cat, {**SEARCH, "consider": ["b200"]})
    machines = [o for o in plan.options if o.candidate.gpu.id == "b200" and o.sized.count == 8]
    assert any(o.sized.replicas > 1 for o in machines)
    for o in machines:
        assert 0 < o.sized.companion_share < 1


def test_one_machine_down_keeps_the_companions_whole_load() -> None:
    """Survivors carry the companions' whole load: what is left for the model is the raw speed
    times (survivors' share - companions' share), not the leftover scaled down."""
    from types import SimpleNamespace

    from gpuwise.advise.failover import one_machine_down

    def option(share: float) -> Any:
        sized = SimpleNamespace(replicas=3, tokens_per_s=100.0 * (1 - share), companion_share=share)
        return SimpleNamespace(sized=sized, candidate=SimpleNamespace(nodes=3))

    assert abs(one_machine_down(option(0.0)) - 100.0 * 2 / 3) < 1e-9
    assert abs(one_machine_down(option(0.5)) - 100.0 * (2 / 3 - 0.5)) < 1e-9
    assert one_machine_down(option(0.7)) == 0.0


def test_a_system_is_priced_from_a_newer_module_price(cat: Catalog) -> None:
    """w58-05, w60-01, w62-05: the Atlas 800T A2 at Baidu's November 2023 order (CNY 2.25M)
    where the 910B alone was reported at CNY 120k in February 2024: the newer reading wins,
    the rest of the server at Epoch AI's share, and the option says so."""
    import datetime as dt

    from gpuwise.cost.power import assumption
    from gpuwise.cost.resolve import make_context
    from gpuwise.cost.system import system_price

    system = next(x for x in cat.extra("system") if x.id == "atlas-800t-a2")
    ctx = make_context(cat, "CNY", dt.date(2026, 12, 7))
    own = max(system.prices, key=lambda p: p.date)
    module = max(
        (p for p in cat.gpu("ascend-910b").prices if not p.includes_host and p.currency == "CNY"),
        key=lambda p: p.date,
    )
    assert module.date > own.date
    priced = system_price(system, ctx, "cn", cat)
    assert priced is not None
    share = assumption(cat, "server_host_cost_fraction_of_gpu").value
    assert priced[0] == module.amount * system.gpus * (1 + share)
    assert system_price(system, ctx, "cn")[0] == own.amount  # without the catalog: its own


def test_a_newer_module_reading_that_implies_a_dearer_server_keeps_the_quote(
    cat: Catalog,
) -> None:
    """The HGX H20's 2025 baseboard price (NVSwitches in it, a peak) would price the server at
    CNY 1.72M over the dealer's CNY 1.2M: only a fall is read from the modules."""
    import datetime as dt

    from gpuwise.cost.resolve import make_context
    from gpuwise.cost.system import system_price

    ctx = make_context(cat, "CNY", dt.date(2026, 12, 7))
    for system in cat.extra("system"):
        own = system_price(system, ctx, "cn")
        read = system_price(system, ctx, "cn", cat)
        if own is not None and read is not None:
            assert read[0] <= own[0], system.id


def test_a_one_off_job_in_a_project_under_a_month_runs_once(cat: Catalog) -> None:
    """w63-04: a two-week batch (months: 0.5) was billed as half a run, every total halved."""
    doc = {**BATCH, "months": 0.5}
    half, whole = plan_of(cat, doc), plan_of(cat, {**BATCH, "months": 1})
    first = half.options[0]
    same = next(o for o in whole.options if o.candidate.label == first.candidate.label)
    assert first.cost.items["compute"] == same.cost.items["compute"]


def test_the_answer_names_no_other_size_of_its_own_offer_as_another_cloud(cat: Catalog) -> None:
    """w62-04, w63-04: "as good" listed the answer's own instance."""
    for doc in (BATCH, THESIS):
        a = plan_of(cat, doc).answers
        if a.cloud is not None:
            named = (a.cloud.provider, a.cloud.instance, a.cloud.billing)
            assert all((t.provider, t.instance, t.billing) != named for t in a.cloud.ties)
