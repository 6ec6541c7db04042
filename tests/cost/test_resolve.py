"""Catalog → specs: platforms, PSU, prices with dates, FX, spot defaults, clear errors."""

from __future__ import annotations

import datetime as dt

import pytest

from gpuwise.catalog import Catalog
from gpuwise.cost.model import busy_hours_per_month
from gpuwise.cost.own import own_cost
from gpuwise.cost.rent import RentUsage, rent_cost
from gpuwise.cost.resolve import (
    Context,
    OwnOptions,
    RentOptions,
    make_context,
    parse_vs,
    resolve_own,
    resolve_rent,
)
from gpuwise.errors import UserError

from .conftest import TODAY


def test_4090_build_uses_consumer_host_and_a_big_enough_psu(cat: Catalog, usd: Context) -> None:
    one = resolve_own(cat, usd, "4090", 1)
    assert one.platform == "desktop"
    assert one.psu_w is not None and one.psu_w >= 1000  # the guide's ≥ 1000 W for one 4090
    two = resolve_own(cat, usd, "rtx-4090", 2)
    assert two.psu_w is not None and two.psu_w > one.psu_w
    assert any(pid.startswith("psu-") for pid, _ in two.host_parts)
    assert two.spec.host_price == pytest.approx(sum(p for _, p in two.host_parts))
    assert not two.spec.unpriced_host  # every desktop part has a dated price


def test_card_limits_per_host(cat: Catalog, usd: Context) -> None:
    with pytest.raises(UserError) as err:
        resolve_own(cat, usd, "rtx-4090", 3)
    assert err.value.key == "cost.too_many_cards"
    assert resolve_own(cat, usd, "rtx-a6000", 4, OwnOptions(card_price=4000)).platform == (
        "workstation"
    )
    server = resolve_own(cat, usd, "h100-sxm", 8)
    # the H100 SXM price is a whole server's divided by 8: the host is already in it
    assert server.platform == "server-hgx" and server.spec.host_price == 0.0
    assert any(n.key == "cost.note_host_in_price" for n in server.notes)
    pcie = resolve_own(cat, usd, "l40s", 8)
    assert pcie.platform == "server-pcie"  # passive cards never go in a desktop case
    # no dated barebone price: the host is estimated from the cards (Epoch AI's ratio)
    assert pcie.spec.host_price and pcie.spec.host_price > 0 and not pcie.spec.unpriced_host
    assert any(n.key == "cost.note_host_estimated" for n in pcie.notes)
    with pytest.raises(UserError):
        resolve_own(cat, usd, "rtx-4090", 0)


def test_card_price_street_then_launch_then_user(cat: Catalog, usd: Context) -> None:
    street = resolve_own(cat, usd, "rtx-5080", 1, OwnOptions(buyer="company"))
    assert street.prices[0].label == "card:street"
    launch = resolve_own(cat, usd, "rtx-5060-ti-8gb", 1, OwnOptions(buyer="company"))
    assert launch.prices[0].label == "card:launch"
    assert launch.spec.card_price == pytest.approx(379)
    assert any(n.key == "cost.note_launch_price" for n in launch.notes)
    # a company finds no new RTX 4090 since its production ended (blind w34-04)
    with pytest.raises(UserError) as ended:
        resolve_own(cat, usd, "rtx-4090", 1, OwnOptions(buyer="company"))
    assert ended.value.key == "cost.no_new_card_price"
    # a person buys a card out of production second-hand, not at its launch price (w16-05)
    used = resolve_own(cat, usd, "rtx-4090", 1)
    newest = max((p for p in cat.gpu("rtx-4090").prices if p.kind == "used"), key=lambda p: p.date)
    assert used.prices[0].label == "card:used"
    assert used.spec.card_price == pytest.approx(newest.amount)
    assert any(n.key == "cost.note_card_used" for n in used.notes)
    # and a used card cheaper than the newest new price (the RTX 5090 of late 2026)
    assert resolve_own(cat, usd, "rtx-5090", 1).spec.card_price == pytest.approx(3254)
    company = resolve_own(cat, usd, "rtx-5090", 1, OwnOptions(buyer="company"))
    assert company.spec.card_price == pytest.approx(4262)
    user = resolve_own(cat, usd, "rtx-4090", 1, OwnOptions(card_price=1800))
    assert user.spec.card_price == 1800
    with pytest.raises(UserError) as err:
        resolve_own(cat, usd, "mi250", 1)  # no price in the catalog
    assert err.value.key == "cost.no_card_price"


def test_launch_price_in_the_result_currency_is_preferred(cat: Catalog, cny: Context) -> None:
    own = resolve_own(cat, cny, "rtx-4090", 1)
    assert own.spec.card_price == pytest.approx(12_999)


def test_resale_curve_skips_shortage_premiums(cat: Catalog, usd: Context) -> None:
    own = resolve_own(cat, usd, "rtx-4090", 2)
    assert own.spec.resale_curve and all(f <= 1 for _, f in own.spec.resale_curve)
    cost = own_cost(own.spec, 100, 24)
    assert 0 < -cost.items["resale"] < cost.items["cards"]


def test_prices_carry_dates_and_stale_flags(cat: Catalog, cny: Context) -> None:
    own = resolve_own(cat, cny, "rtx-4090", 2)
    tariff = next(p for p in own.prices if p.label.startswith("tariff:"))
    assert tariff.date is not None and tariff.stale  # the 2012 Beijing residential rate
    rent = resolve_rent(cat, cny, "compshare:RTX 4090 24G ×1:monthly")
    offer = rent.prices[0]
    # dated by the docs commit that stored the price (2026-05-13), read 2026-12-02: stale
    assert offer.date == dt.date(2026, 5, 13) and offer.retrieved == TODAY and offer.stale
    assert all(p.date is not None or p.undated for p in (*own.prices, *rent.prices))


def test_tariff_pue_and_maintenance_options(cat: Catalog, usd: Context) -> None:
    base = resolve_own(cat, usd, "rtx-4090", 1, OwnOptions(tariff="0.10", pue="1.0"))
    dear = resolve_own(cat, usd, "rtx-4090", 1, OwnOptions(tariff="0.30", pue="office"))
    busy = busy_hours_per_month(8)
    e1 = own_cost(base.spec, busy, 12).items["electricity"]
    e2 = own_cost(dear.spec, busy, 12).items["electricity"]
    assert e2 == pytest.approx(e1 * 3 * 1.8)
    eu = resolve_own(cat, usd, "rtx-4090", 1, OwnOptions(tariff="eu-residential"))
    assert eu.spec.tariff_per_kwh > 0.2  # EUR converted to USD
    for bad in (OwnOptions(tariff="moon"), OwnOptions(pue="7"), OwnOptions(resale_pct=150)):
        with pytest.raises(UserError):
            resolve_own(cat, usd, "rtx-4090", 1, bad)
    m = resolve_own(cat, usd, "rtx-4090", 1, OwnOptions(maintenance_pct=0))
    assert own_cost(m.spec, busy, 12).items["maintenance"] == 0


def test_rent_resolution_and_errors(cat: Catalog, cny: Context) -> None:
    assert parse_vs("aws:g5.xlarge:spot") == ("aws", "g5.xlarge", "spot")
    assert parse_vs("compshare:A100 80G ×1") == ("compshare", "A100 80G ×1", None)
    r = resolve_rent(cat, cny, "AWS:G5.XLARGE")
    assert r.spec.billing == "on-demand" and r.spec.currency == "CNY"
    assert r.spec.price == pytest.approx(1.006 * cny.fx.rate("CNY"))
    for bad, key in (
        ("nocloud:x", "providers.unknown"),
        ("aws:g9.huge", "cost.unknown_instance"),
        ("aws:g5.xlarge:monthly", "cost.no_billing"),
        ("aws", "cost.bad_vs"),
    ):
        with pytest.raises(UserError) as err:
            resolve_rent(cat, cny, bad)
        assert err.value.key == key


def test_spot_uses_catalog_default_unless_given(cat: Catalog, usd: Context) -> None:
    spot = resolve_rent(cat, usd, "gcp:a2-ultragpu-1g:spot")
    assert spot.spec.spot is not None and spot.spec.spot.interruptions_per_hour > 0
    assert any(n.key == "cost.note_spot_default" for n in spot.notes)
    calm = resolve_rent(cat, usd, "gcp:a2-ultragpu-1g:spot", RentOptions(0, 0))
    assert calm.spec.spot is not None and calm.spec.spot.interruptions_per_hour == 0
    busy = busy_hours_per_month(8)
    assert (
        rent_cost(calm.spec, busy, 12, RentUsage()).total
        < rent_cost(spot.spec, busy, 12, RentUsage()).total
    )


def test_fx_override_and_bad_currency(cat: Catalog) -> None:
    ctx = make_context(cat, "cny", TODAY, cny_per_usd=8.0)
    r = resolve_rent(cat, ctx, "aws:g5.xlarge")
    assert r.spec.price == pytest.approx(1.006 * 8.0)
    with pytest.raises(UserError):
        make_context(cat, "JPY", TODAY)
