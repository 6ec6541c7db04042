"""The guide's case study (§3.2): two RTX 4090s for about ¥30,000 against an A100 80GB spot
instance billed by the hour at under ¥3,000 a month, for a researcher who runs models now and
then. Renting wins at that use; owning wins when the cards are busy most of the day.

The guide's friend used Alibaba; the catalog has no citable Alibaba A100 price, so the A100
80GB spot instance here is GCP's a2-ultragpu-1g (the same card, billed the same way).
"""

from __future__ import annotations

from gpuwise.catalog import Catalog
from gpuwise.cost.compare import break_even
from gpuwise.cost.model import busy_hours_per_month
from gpuwise.cost.own import own_cost
from gpuwise.cost.rent import RentUsage, rent_cost
from gpuwise.cost.resolve import Context, OwnOptions, resolve_own, resolve_rent

GUIDE_CARD_PRICE_CNY = 15_000  # "之前买卡花了 3 万": ¥30,000 for the two cards
OCCASIONAL_HOURS_PER_DAY = 4.0  # a researcher's occasional runs (the bill stays under ¥3,000)
OCCASIONAL_MONTHS = 12
HEAVY_HOURS_PER_DAY = 20.0
HEAVY_MONTHS = 24
USAGE = RentUsage(data_gb=500, egress_gb_per_month=50, checkpoint_min=30)


def _options(cat: Catalog, cny: Context):  # type: ignore[no-untyped-def]
    own = resolve_own(cat, cny, "rtx-4090", 2, OwnOptions(card_price=GUIDE_CARD_PRICE_CNY))
    rent = resolve_rent(cat, cny, "gcp:a2-ultragpu-1g:spot")
    return own, rent


def test_two_4090s_cost_about_30000_yuan(cat: Catalog, cny: Context) -> None:
    own, _ = _options(cat, cny)
    cost = own_cost(own.spec, busy_hours_per_month(OCCASIONAL_HOURS_PER_DAY), OCCASIONAL_MONTHS)
    assert cost.items["cards"] == 30_000
    assert own.spec.count == 2 and own.platform == "desktop"


def test_occasional_use_renting_wins(cat: Catalog, cny: Context) -> None:
    own, rent = _options(cat, cny)
    busy = busy_hours_per_month(OCCASIONAL_HOURS_PER_DAY)
    r = rent_cost(rent.spec, busy, OCCASIONAL_MONTHS, USAGE)
    o = own_cost(own.spec, busy, OCCASIONAL_MONTHS)
    assert r.monthly < 3_000, r.items  # the guide: 月均成本不到 3000 元
    assert r.total < o.total
    be = break_even(own.spec, rent.spec, OCCASIONAL_HOURS_PER_DAY, OCCASIONAL_MONTHS, USAGE)
    assert be.hours_per_day is not None and be.hours_per_day > OCCASIONAL_HOURS_PER_DAY
    assert be.months is not None and be.months > OCCASIONAL_MONTHS


def test_high_utilisation_owning_wins(cat: Catalog, cny: Context) -> None:
    own, rent = _options(cat, cny)
    busy = busy_hours_per_month(HEAVY_HOURS_PER_DAY)
    r = rent_cost(rent.spec, busy, HEAVY_MONTHS, USAGE)
    o = own_cost(own.spec, busy, HEAVY_MONTHS)
    assert o.total < r.total / 2
    be = break_even(own.spec, rent.spec, HEAVY_HOURS_PER_DAY, HEAVY_MONTHS, USAGE)
    assert be.hours_per_day is not None and be.hours_per_day < HEAVY_HOURS_PER_DAY
    assert be.months is not None and be.months <= 6
