"""Blind wave 52 mechanisms: what a company keeps in its server room is a workstation or a
server, whatever its hours (w52-02)."""

from __future__ import annotations

from typing import Any

import pytest

from gpuwise.catalog import Catalog
from tests.advise.wave_plans import plan_of

MITTELSTAND: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "mistralai/Mistral-Small-3.2-24B-Instruct-2506",
                 "concurrency": 10, "prompt_tokens": 2000, "gen_tokens": 300,
                 "target_tokens_per_s_per_request": 20},
    "months": 36, "hours_per_day": 10, "days_per_week": 5, "region": "germany",
    "data_may_leave": False, "entity": "company", "site": "server-room", "currency": "EUR",
    "budget": {"amount": 40000, "currency": "EUR", "per": "total"},
}  # fmt: skip
"""w52-02: a manufacturer's internal assistant for 50 engineers, in office hours."""

HOME_PLATFORMS = {"desktop", "desktop-entry"}


@pytest.mark.parametrize("site", ["server-room", "datacenter"])
def test_a_companys_machine_in_a_server_room_is_never_a_home_desktop(
    cat: Catalog, site: str
) -> None:
    """Office hours or not, a company's machine in a room built for servers is administered
    remotely and runs for years: ECC memory and remote management, not a gaming desktop."""
    plan = plan_of(cat, {**MITTELSTAND, "site": site})
    bought = [
        o for o in plan.options + plan.infeasible
        if o.candidate.kind == "own" and o.candidate.system is None and o.platform
    ]  # fmt: skip
    assert bought
    assert not [o.candidate.label for o in bought if o.platform in HOME_PLATFORMS]


def test_a_companys_training_box_in_an_office_may_stay_a_desktop(cat: Catalog) -> None:
    """The rule is the duty's and the room's: a company's one-off LoRA run in an office may
    run on a desktop (no service waits on it)."""
    doc = {
        "workload": {"kind": "train", "model": "qwen3-8b", "mode": "lora",
                     "dataset_tokens": 20_000_000, "seq_len": 2048},
        "months": 12, "region": "germany", "data_may_leave": False, "entity": "company",
        "site": "office", "currency": "EUR",
    }  # fmt: skip
    plan = plan_of(cat, doc)
    platforms = {o.platform for o in plan.options + plan.infeasible if o.candidate.kind == "own"}
    assert platforms & HOME_PLATFORMS


INDIE_CODER: dict[str, Any] = {
    "workload": {"kind": "local", "model": "qwen3-coder-30b-a3b", "companions": ["gpt-oss-20b"],
                 "concurrency": 1, "context": 65536, "prompt_tokens": 24000,
                 "gen_tokens": 800, "target_tokens_per_s_per_request": 30},
    "months": 24, "hours_per_day": 6, "region": "us", "currency": "USD",
    "entity": "individual", "site": "home",
    "budget": {"amount": 3000, "currency": "USD", "per": "total"},
    "owns": ["rtx-3080"], "owns_host": True, "host_ram_gb": 32, "host_ram_type": "ddr4",
}  # fmt: skip
"""w52-03: a developer keeps a second model loaded beside the first on a 10 GB card he owns."""


def test_a_model_served_beside_takes_its_memory_on_every_option(cat: Catalog) -> None:
    """w52-03: the companion's 13 GiB was reserved on new cards, Macs and rentals but not on
    the owned card extended with a bought one, which ranked first on memory it did not have."""
    plan = plan_of(cat, INDIE_CODER)
    everything = plan.options + plan.infeasible
    beside = {o.sized.companion_bytes for o in everything}
    assert len(beside) == 1 and beside.pop() > 10 * 2**30
    extended = [o for o in everything if o.candidate.owned_kept]
    assert extended
    for o in extended:
        if o.candidate.offload_fraction:
            continue  # the weights past the cards sit in RAM by design (owned_sizing)
        used = o.sized.memory.device_total_bytes + o.sized.companion_bytes
        assert used <= o.sized.gpu.memory_gb * 2**30, o.candidate.label  # GiB, as the table


NPC_KOREA: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "meta-llama/Llama-3.3-70B-Instruct",
                 "samples": 2_000_000, "prompt_tokens": 1500, "gen_tokens": 250,
                 "runs_per_month": 1},
    "months": 12, "deadline_days": 7, "allow_spot": True, "region": "korea",
    "currency": "USD", "entity": "company",
}  # fmt: skip
"""w52-04: a Korean studio's monthly NPC batch; the catalog prices no rental in Korea."""


def test_a_country_with_no_rental_priced_says_so_and_quotes_the_wider_region(
    cat: Catalog,
) -> None:
    """w52-04: "owning wins" where no rental was ranked at all read as if renting had lost.
    The cloud answer says none was ranked, and a note quotes the first rental of the region
    the country lies in, from the plan run again there."""
    from gpuwise.advise.report import answer_lines

    # Korea now rents what AWS sells in Seoul at its priced-elsewhere rate (blind w58-01):
    # Taiwan is the country no provider in the catalog sells these machines in
    plan = plan_of(cat, {**NPC_KOREA, "region": "taiwan"})
    assert plan.options and not any(o.candidate.kind == "rent" for o in plan.options)
    everything = plan.options + plan.infeasible + plan.unchecked
    said = "None ranked" if not any(o.candidate.kind == "rent" for o in everything) else "None"
    assert said in answer_lines(cat, plan)[-1]
    notes = [p for k, p in plan.assumptions if k == "plan.note_rental_nearby"]
    assert len(notes) == 1 and notes[0]["wider"] == "asia-pacific"
    wider = plan_of(cat, {**NPC_KOREA, "region": "asia-pacific"})
    first_rental = next(o for o in wider.options if o.candidate.kind == "rent")
    assert notes[0]["ratio"] == pytest.approx(first_rental.cost.total / plan.options[0].cost.total)


def test_korea_rents_what_is_sold_in_seoul_priced_elsewhere(cat: Catalog) -> None:
    """w58-01: a rental sold in Seoul and priced for another region is ranked at that price
    with the risk that says so, not left out for a purchase."""
    plan = plan_of(cat, NPC_KOREA)
    rented = [o for o in plan.options if o.candidate.kind == "rent"]
    assert rented
    assert all(
        any(k in ("risk.priced_elsewhere", "risk.region_unrecorded") for k, _ in o.risks)
        or not o.candidate.offer.regions
        or o.candidate.offer.price_region
        for o in rented
    )
    assert any(k == "risk.priced_elsewhere" for o in rented for k, _ in o.risks)


def test_no_nearby_note_where_the_country_prices_a_rental(cat: Catalog) -> None:
    plan = plan_of(cat, {**NPC_KOREA, "region": "japan"})
    assert any(o.candidate.kind == "rent" for o in plan.options)
    assert not [k for k, _ in plan.assumptions if k == "plan.note_rental_nearby"]


INDIA_LAB: dict[str, Any] = {
    "workload": {"kind": "train", "model": "Qwen/Qwen3-14B", "mode": "full",
                 "dataset_tokens": 2_000_000_000, "seq_len": 4096, "epochs": 1,
                 "runs_per_month": 0.25},
    "months": 12, "deadline_days": 10, "max_gpus": 16, "region": "india",
    "currency": "USD", "entity": "institution",
}  # fmt: skip
"""w52-05: an Indian lab's full fine-tune; India's GPU clouds list one-GPU machines."""


def test_rented_machines_too_small_to_hold_or_join_are_named(cat: Catalog) -> None:
    """w52-05: E2E's and Yotta's one-GPU H100 machines, the providers the user named, vanished
    from the plan with no line: one cannot hold a 14B full fine-tune and one-GPU machines are
    never joined for training. The rule names them and what to ask for."""
    plan = plan_of(cat, INDIA_LAB)
    fired = [p for k, p in plan.rules if k == "rentals-too-small-to-join"]
    assert len(fired) == 1
    assert "E2E Networks" in fired[0]["offers_en"]
    assert all(c.nodes == 1 and c.kind == "rent" for c in plan.small_rentals)
    held = {o.candidate.gpu.id for o in plan.options + plan.infeasible + plan.unchecked}
    assert {c.gpu.id for c in plan.small_rentals} & held


def test_one_or_two_cards_in_a_server_room_get_an_entry_server_not_a_threadripper(
    cat: Catalog,
) -> None:
    """A company's one or two cards in its server room go in an entry server (ECC memory, a
    BMC) at a fraction of the 512 GB Threadripper workstation the rule first fell back to."""
    plan = plan_of(cat, MITTELSTAND)
    small = [
        o for o in plan.options + plan.infeasible
        if o.candidate.kind == "own" and o.candidate.system is None and o.candidate.count <= 2
        and o.candidate.gpu.cooling == "active"
        and o.candidate.gpu.memory_gb * o.candidate.count <= 64
        and o.platform != "whole-system"  # a Mac or a DGX Spark is its own machine
    ]  # fmt: skip
    assert small
    assert {o.platform for o in small} == {"server-entry"}


INSPECTION_BATCH: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "qwen2.5-72b", "samples": 200_000,
                 "prompt_tokens": 1600, "gen_tokens": 150},
    "deadline_days": 7, "allow_spot": True, "region": "australia", "currency": "USD",
    "entity": "company",
}  # fmt: skip
"""w53-05's shape: a one-off batch of a 72B model that fits 4 x H100 in BF16 (text-only here)."""


def test_a_format_compressed_for_cost_is_priced_as_shipped_on_the_devices_allowed(
    cat: Catalog,
) -> None:
    """w53-05: FP8 copies chosen because they cost less were quoted against BF16 on twice the
    devices (16 A100s at 2.9x). The note prices the shipped format with the devices allowed
    (the plan with workload.quant pinned) and says the compression was a cost choice."""
    plan = plan_of(cat, INSPECTION_BATCH)
    first = plan.options[0]
    notes = dict(plan.assumptions)
    if first.sized.quant == "bf16":
        pytest.skip("the first option runs the shipped format")
    assert "plan.note_native_with_more" not in notes
    same = notes["plan.note_native_same_devices"]
    pinned = plan_of(
        cat, {**INSPECTION_BATCH, "workload": {**INSPECTION_BATCH["workload"], "quant": "bf16"}}
    )
    assert same["ratio"] == pytest.approx(pinned.options[0].cost.total / first.cost.total)
    assert same["devices"] <= plan.scenario.max_gpus


def test_a_full_fine_tune_short_by_its_logits_runs_with_fused_kernels_on_rentals(
    cat: Catalog,
) -> None:
    """w54-02: a 24B full fine-tune on one 8 x H100 node was 0.5 GiB short, 10 GiB of it the
    unfused FP32 logits, and the node vanished from the plan; with a chunked cross-entropy
    (Liger) it fits, said as the option's risk."""
    doc = {
        "workload": {"kind": "train", "model": "mistralai/Mistral-Small-3.2-24B-Instruct-2506",
                     "mode": "full", "dataset_tokens": 500_000_000, "seq_len": 8192,
                     "epochs": 1},
        "deadline_days": 5, "max_gpus": 16, "region": "eu", "currency": "EUR",
        "entity": "company", "budget": {"amount": 15000, "currency": "EUR", "per": "total"},
    }  # fmt: skip
    plan = plan_of(cat, doc)
    h100 = [o for o in plan.options if o.candidate.gpu.id == "h100-sxm" and o.candidate.count == 8]
    assert h100
    assert all(o.sized.fused_only and "risk.fused_only" in dict(o.risks) for o in h100)


def test_a_weighed_card_is_answered_by_its_configuration_nearest_an_answer(cat: Catalog) -> None:
    """w54-03: "H100 ... 299 tokens/s is below the 1,200 tokens/s target" quoted one H100,
    where eight of them served the load and were out only for the budget."""
    doc = {
        "workload": {"kind": "serve", "model": "llama-3.3-70b", "concurrency": 60,
                     "prompt_tokens": 3000, "gen_tokens": 400,
                     "target_tokens_per_s_per_request": 20},
        "months": 48, "hours_per_day": 24, "region": "texas", "data_may_leave": False,
        "standby": "hot", "entity": "company", "site": "datacenter", "currency": "USD",
        "budget": {"amount": 400000, "currency": "USD", "per": "total"}, "max_gpus": 16,
        "consider": ["h100-sxm"],
    }  # fmt: skip
    plan = plan_of(cat, doc)
    said = [p for k, p in plan.assumptions if k == "plan.considered_blocked"]
    assert said and "below" not in said[0]["why_en"]


SHENZHEN_CHAT: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "qwen3-30b-a3b-2507", "engine": "vllm",
                 "concurrency": 40, "prompt_tokens": 2000, "gen_tokens": 500,
                 "target_tokens_per_s_per_request": 25},
    "months": 24, "hours_per_day": 12, "days_per_week": 5, "region": "cn",
    "entity": "company", "site": "office", "currency": "CNY",
    "budget": {"amount": 200000, "currency": "CNY", "per": "total"},
}  # fmt: skip
"""w54-01: a Shenzhen company's internal chat for 300 staff, weekdays 9-21."""


def test_a_container_platform_with_unknown_restarts_is_priced_running(cat: Catalog) -> None:
    """w54-01: 算家云's service was priced stopped each night although nothing says a stopped
    container gets a card back (AutoDL's does not): per-card container platforms without a
    source are priced kept running, with the rule that says so; a sourced one (Compshare
    starts on any free device) keeps its nightly stop."""
    from gpuwise.catalog.schema_cloud import HOURS_PER_MONTH

    plan = plan_of(cat, SHENZHEN_CHAT)
    rentals = [o for o in plan.options + plan.infeasible if o.candidate.kind == "rent"]
    by = {o.candidate.provider.id: o for o in rentals if o.candidate.billing == "on-demand"}
    suanjia, compshare = by.get("suanjiayun"), by.get("compshare")
    assert suanjia is not None and compshare is not None
    assert suanjia.busy_hours_per_month == pytest.approx(HOURS_PER_MONTH)
    assert "kept-running-unconfirmed" in dict(suanjia.rules)
    assert compshare.busy_hours_per_month < HOURS_PER_MONTH / 2


def test_a_scenario_lists_the_clouds_it_will_rent_from(cat: Catalog) -> None:
    """w54-02: "EU clouds only" could not be written. `providers:` (ids or names) keeps the
    rentals to those clouds and the rule counts the rest; an unknown name is one clear error."""
    from gpuwise.advise.scenario import parse_scenario
    from gpuwise.errors import UserError

    doc = {
        "workload": {"kind": "train", "model": "qwen3-8b", "mode": "lora",
                     "dataset_tokens": 50_000_000, "seq_len": 4096},
        "deadline_days": 3, "region": "eu", "currency": "EUR", "entity": "company",
        "providers": ["Scaleway", "nebius", "verda"],
    }  # fmt: skip
    plan = plan_of(cat, doc)
    rented = {o.candidate.provider.id for o in plan.options if o.candidate.kind == "rent"}
    assert rented and rented <= {"scaleway", "nebius", "verda"}
    assert any(k == "provider-not-listed" for k, _ in plan.rules)
    with pytest.raises(UserError):
        plan_of(cat, {**doc, "providers": ["no-such-cloud-anywhere"]})
    assert parse_scenario(doc, "t").providers == ["Scaleway", "nebius", "verda"]


def test_a_batch_with_a_deadline_scales_out_over_machines(cat: Catalog) -> None:
    """w55-05: a 10-day batch with 16 GPUs allowed was held to one 8-GPU machine (machines
    were joined only for a service's target) and no option finished in time. A one-off
    batch's inputs are independent: copies on several machines take from one queue."""
    doc = {
        "workload": {"kind": "batch", "model": "meta-llama/Llama-3.3-70B-Instruct",
                     "samples": 3_000_000, "prompt_tokens": 8000, "gen_tokens": 500},
        "deadline_days": 10, "allow_spot": True, "region": "any", "max_gpus": 16,
        "currency": "USD", "entity": "company",
    }  # fmt: skip
    plan = plan_of(cat, doc)
    joined = [o for o in plan.options + plan.infeasible if o.candidate.nodes > 1]
    assert joined
    machine = {
        (o.candidate.gpu.id, o.candidate.node_devices): o.time_hours
        for o in plan.options + plan.infeasible
        if o.candidate.nodes == 1 and o.time_hours
    }
    for o in joined:  # more of the same machine finish sooner
        alone = machine.get((o.candidate.gpu.id, o.candidate.node_devices))
        if alone and o.time_hours:
            assert o.time_hours < alone, o.candidate.label
