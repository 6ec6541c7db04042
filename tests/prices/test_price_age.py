"""`gpuwise prices status` shows how old the built-in catalog's prices are, per provider (issue
29 item 6): counts, oldest / median / newest published date, how many are over 12 months old,
and undated offers apart so that an undated list never looks new."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from gpuwise.catalog import load_catalog
from gpuwise.catalog.catalog import Catalog
from gpuwise.catalog.price_age import (
    OLD_AFTER_DAYS,
    median_date,
    offer_as_of,
    provider_price_ages,
)
from gpuwise.catalog.schema_cloud import Offer, OfferPrice

TODAY = dt.date(2026, 12, 5)


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog(use_overrides=False, use_cache=False)


def _offer(cat: Catalog, *dates: dt.date | None, provider: str = "alibaba") -> Offer:
    """An offer of `provider` with one price per date, dated on the price itself; the source is
    an undated one so that a None date stays unknown."""
    undated = next(s.id for s in cat.sources.values() if s.published_date is None)
    prices = [
        OfferPrice(billing=b, amount=10.0 + i, published=d)
        for i, (b, d) in enumerate(zip(("on-demand", "monthly", "yearly"), dates, strict=False))
    ]
    return Offer(provider=provider, instance="x", gpu="a10", gpu_count=1, source=undated,
                 prices=prices)  # fmt: skip


def test_an_offer_is_as_old_as_its_oldest_price(cat: Catalog) -> None:
    old, new = dt.date(2023, 6, 17), dt.date(2026, 11, 1)
    assert offer_as_of(cat, _offer(cat, new, old)) == old
    assert offer_as_of(cat, _offer(cat, None, new)) == new
    assert offer_as_of(cat, _offer(cat, None)) is None


def test_median_of_an_even_count_is_a_real_offer_date() -> None:
    dates = [dt.date(2021, 1, 1), dt.date(2024, 1, 1), dt.date(2025, 1, 1), dt.date(2026, 1, 1)]
    assert median_date(dates) == dt.date(2024, 1, 1)
    assert median_date(dates[:3]) == dt.date(2024, 1, 1)


def test_undated_offers_are_counted_apart_not_as_old_or_new(cat: Catalog) -> None:
    """Regression guard: an undated price must not drag the newest date or the old count."""
    stale = TODAY - dt.timedelta(days=OLD_AFTER_DAYS + 1)
    fresh = TODAY - dt.timedelta(days=10)
    offers = [_offer(cat, stale), _offer(cat, fresh), _offer(cat, None)]
    small = cat.with_part("offers", tuple(offers))
    [row] = provider_price_ages(small, TODAY)
    assert (row.offers, row.dated, row.undated) == (3, 2, 1)
    assert (row.oldest, row.newest, row.older_than_12_months) == (stale, fresh, 1)


def test_feed_and_user_offers_are_left_out(cat: Catalog) -> None:
    mine = _offer(cat, TODAY).model_copy(update={"origin": "user"})
    small = cat.with_part("offers", (mine,))
    assert provider_price_ages(small, TODAY) == []


def test_every_built_in_offer_is_in_one_provider_row(cat: Catalog) -> None:
    rows = provider_price_ages(cat, TODAY)
    built_in = [o for o in cat.offers if o.origin == "catalog"]
    assert sum(r.offers for r in rows) == len(built_in)
    for r in rows:
        assert r.dated + r.undated == r.offers
        if r.dated:
            assert r.oldest is not None and r.median is not None and r.newest is not None
            assert r.oldest <= r.median <= r.newest
        mine = [offer_as_of(cat, o) for o in built_in if o.provider == r.provider]
        old = [d for d in mine if d is not None and (TODAY - d).days > OLD_AFTER_DAYS]
        assert r.older_than_12_months == len(old)


def test_status_shows_the_age_table_and_json(cli: Any) -> None:
    res = cli("prices", "status", "--json")
    assert res.code == 0, res.err
    age = res.json()["catalog_age"]
    assert age["old_after_days"] == OLD_AFTER_DAYS
    rows = {r["provider"]: r for r in age["providers"]}
    assert "alibaba" in rows and rows["alibaba"]["region_kind"] == "cn"
    assert all(r["dated"] + r["undated"] == r["offers"] for r in rows.values())
    text = cli("prices", "status")
    assert text.code == 0
    assert "Age of the built-in catalog prices" in text.out and "alibaba" in text.out
