"""The purchasable-systems and training-capability data: every reference resolves, every price
is dated and says its market, and the parts the issue names are covered."""

from __future__ import annotations

import pytest

from gpuwise.catalog import Catalog, load_catalog
from gpuwise.catalog.systems import sold_as_system, systems_for, training_refusal

COVERED = {
    "a100-40gb": 8,
    "h100-sxm": 8,
    "h200": 8,
    "h20": 8,
    "h800": 8,
    "a800": 8,
    "b200": 8,
    "b300": 8,
    "mi355x": 8,
    "mi300x": 8,
    "mi325x": 8,
    "ascend-910b": 8,
}
"""Parts that must be buyable as an 8-GPU system (issue 26, item 1)."""


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog(use_overrides=False, use_cache=False)


def test_every_system_names_a_catalog_card(cat: Catalog) -> None:
    ids = {g.id for g in cat.gpus}
    for s in cat.extra("system"):
        assert s.gpu in ids, s.id
        gpu = cat.gpu_by_id(s.gpu)
        assert s.gpus <= gpu.max_per_host or s.form == "workstation", s.id


def test_system_prices_are_dated_and_say_their_market(cat: Catalog) -> None:
    for s in cat.extra("system"):
        for p in s.prices:
            assert p.date is not None and p.market is not None, s.id
            assert p.source in cat.sources, (s.id, p.source)
            per_gpu_usd = p.amount / s.gpus / (7.0 if p.currency == "CNY" else 1.0)
            assert 3_000 < per_gpu_usd < 100_000, (s.id, per_gpu_usd)


def test_named_parts_have_an_8_gpu_system(cat: Catalog) -> None:
    for gpu_id, size in COVERED.items():
        assert size in {s.gpus for s in systems_for(cat, gpu_id)}, gpu_id
    assert 4 in {s.gpus for s in systems_for(cat, "h100-sxm")}  # the 4-GPU HGX board


def test_system_only_forms_are_sxm_oam_and_modules(cat: Catalog) -> None:
    assert sold_as_system(cat.gpu_by_id("h100-sxm"))
    assert sold_as_system(cat.gpu_by_id("mi300x"))
    assert not sold_as_system(cat.gpu_by_id("h100-pcie"))
    assert not sold_as_system(cat.gpu_by_id("atlas-300i-duo"))
    assert not sold_as_system(cat.gpu_by_id("apple-m4"))


def test_training_rows_name_catalog_cards(cat: Catalog) -> None:
    ids = {g.id for g in cat.gpus}
    for row in cat.extra("training_support"):
        assert row.gpu in ids and row.note_en and row.note_zh, row.gpu
    assert training_refusal(cat, "atlas-300i-duo", ["pytorch"]) is not None
    assert training_refusal(cat, "inferentia2", ["pytorch"]) is not None
    assert training_refusal(cat, "ascend-910b", ["pytorch"]) is None
    assert training_refusal(cat, "trainium", ["pytorch"]) is None
