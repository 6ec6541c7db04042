"""Blind wave 50 mechanisms: an embedder's one-off batch keeps the engine's running batch full
(w50-03), a break-even in runs a month the owned machine has no hours for is never (w50-02),
and the United Kingdom is a region of its own (w50-03)."""

from __future__ import annotations

from typing import Any

import pytest

from gpuwise.advise.regions import find_region
from gpuwise.catalog import Catalog
from gpuwise.catalog.schema_cloud import HOURS_PER_MONTH
from tests.advise.wave_plans import plan_of


def test_an_embedding_batch_is_sized_at_the_engines_running_batch(cat: Catalog) -> None:
    doc = {
        "workload": {"kind": "batch", "model": "Qwen/Qwen3-Embedding-8B", "samples": 50_000_000,
                     "prompt_tokens": 400, "gen_tokens": 0},
        "deadline_days": 3, "region": "eu", "currency": "EUR", "entity": "company",
        "allow_spot": True,
    }  # fmt: skip
    plan = plan_of(cat, doc)
    assert plan.options
    first = plan.options[0]
    assert first.sized.memory.inputs["batch"] > 1  # not one document at a time
    said = [k for k, _ in plan.assumptions if k == "plan.note_batch_concurrency_assumed"]
    assert said
    one_at_a_time = plan_of(cat, {**doc, "workload": {**doc["workload"], "concurrency": 1}})
    same = [
        o
        for o in one_at_a_time.options
        if o.candidate.label == first.candidate.label and o.sized.count == first.sized.count
    ]
    if same:  # the same hardware runs the batch faster with the engine's batch full
        assert first.sized.tokens_per_s > same[0].sized.tokens_per_s


def test_a_break_even_needing_more_runs_than_hours_is_never(cat: Catalog) -> None:
    from gpuwise.advise.outcome import break_even_runs

    plan = plan_of(cat, {
        "workload": {"kind": "train", "model": "qwen3-8b", "mode": "full",
                     "dataset_tokens": 2_000_000_000, "seq_len": 8192},
        "deadline_days": 7, "region": "cn", "currency": "CNY", "entity": "institution",
        "budget": {"amount": 30000, "currency": "CNY", "per": "total"},
    })  # fmt: skip
    every = (*plan.options, *plan.infeasible)
    own = [o for o in every if o.candidate.kind == "own" and o.time_hours]
    rent = [o for o in plan.options if o.candidate.kind == "rent"]
    assert own and rent
    for o in own:
        runs = break_even_runs(o, rent[0], 1.0)
        assert runs is None or runs * (o.time_hours or 0) <= HOURS_PER_MONTH


def test_the_united_kingdom_is_a_region(cat: Catalog) -> None:
    for name in ("uk", "United Kingdom", "london", "英国"):
        region = find_region(cat, name)
        assert region is not None and region.id == "uk"
    assert "eu-west-2" in find_region(cat, "uk").codes  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("name", "region_id"),
    [("日本", "japan"), ("美国", "us"), ("欧洲", "eu"), ("韩国", "korea"), ("中国", "cn")],
)
def test_a_region_named_in_chinese_is_that_region(cat: Catalog, name: str, region_id: str) -> None:
    """Every Chinese region name read as '' and matched China's alias first."""
    region = find_region(cat, name)
    assert region is not None and region.id == region_id


INTERNAL: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "qwen3-8b", "concurrency": 16,
                 "prompt_tokens": 2000, "gen_tokens": 300},
    "months": 12, "hours_per_day": 24, "region": "us", "currency": "USD",
    "entity": "company",
}  # fmt: skip


def test_an_internal_service_that_asks_for_a_spare_gets_one(cat: Catalog) -> None:
    """Blind w50-04: `standby: hot` on an internal service was dropped without a word."""
    asked = plan_of(cat, {**INTERNAL, "standby": "hot"})
    plain = plan_of(cat, INTERNAL)
    spared = [o for o in asked.options if "failover_replica" in o.cost.items]
    assert spared
    assert all(any(r == "asked-failover" for r, _ in o.rules) for o in spared)
    assert not any("failover_replica" in o.cost.items for o in plain.options)


def test_a_country_of_a_region_pays_its_own_tariff_and_keeps_the_regions_offers(
    cat: Catalog,
) -> None:
    """Blind w50-05: `region: germany` was charged the EU household average, not Germany's."""
    from gpuwise.cost.power import default_tariff

    assert default_tariff(cat, "EUR", "household", "germany") == "de-residential"
    assert default_tariff(cat, "EUR", "household", "德国") == "de-residential"
    assert default_tariff(cat, "EUR", "household", "eu") != "de-residential"
    assert find_region(cat, "germany") == find_region(cat, "eu")  # the EU's offers
