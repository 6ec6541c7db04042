"""Unit behaviour of the pure cost functions: owning, renting, spot, break-even, FX, stale."""

from __future__ import annotations

import datetime as dt
import time

import pytest

from gpuwise.catalog.schema_cloud import HOURS_PER_MONTH
from gpuwise.cost.compare import break_even_hours
from gpuwise.cost.fx import Fx, build_fx
from gpuwise.cost.model import busy_hours_per_month, is_stale
from gpuwise.cost.own import OwnSpec, own_cost, pick_psu, psu_watts, resale_fraction
from gpuwise.cost.rent import HIDDEN_ITEMS, HiddenRates, RentSpec, RentUsage, rent_cost
from gpuwise.cost.spot import SpotRisk, rework_hours
from gpuwise.errors import UserError


def own_spec(**kw: object) -> OwnSpec:
    base: dict[str, object] = dict(
        label="own",
        gpu_id="g",
        count=2,
        currency="CNY",
        card_price=10_000.0,
        host_price=5_000.0,
        gpu_load_w=400.0,
        gpu_idle_w=20.0,
        host_load_w=200.0,
        host_idle_w=100.0,
        pue=1.0,
        tariff_per_kwh=1.0,
        maintenance_annual_fraction=0.1,
        resale_base_per_card=10_000.0,
        resale_age_months=0.0,
        resale_curve=((12.0, 0.5),),
    )
    base.update(kw)
    return OwnSpec(**base)  # type: ignore[arg-type]


def rent_spec(**kw: object) -> RentSpec:
    base: dict[str, object] = dict(
        label="rent",
        provider="p",
        instance="i",
        gpu_id="g",
        gpu_count=1.0,
        billing="on-demand",
        price=10.0,
        per="hour",
        currency="CNY",
        hidden=HiddenRates(
            block_per_gb_month=1.0, egress_per_gb=0.5, egress_free_gb_per_month=10.0
        ),
    )
    base.update(kw)
    return RentSpec(**base)  # type: ignore[arg-type]


def test_own_items_follow_the_formula() -> None:
    spec = own_spec()
    cost = own_cost(spec, busy_hours_per_month=100.0, months=12, idle_hours_per_month=50.0)
    assert cost.items["cards"] == 20_000
    assert cost.items["host"] == 5_000
    # (100 h x (2 x 400 + 200) W + 50 h x (2 x 20 + 100) W) x 12 months / 1000 x 1.0 x 1.0
    assert cost.items["electricity"] == pytest.approx((100 * 1000 + 50 * 140) * 12 / 1000)
    # the allowance is a failure rate at full load: the share of hours worked (100 of 730)
    share = 100 / (24 * 730 / 24)
    assert cost.items["maintenance"] == pytest.approx(20_000 * 0.1 * share)
    assert cost.items["resale"] == pytest.approx(-2 * 10_000 * 0.5)
    assert cost.total == sum(cost.items.values())
    assert cost.monthly == pytest.approx(cost.total / 12)


def test_maintenance_counts_only_the_months_after_the_warranty() -> None:
    """A part that fails under warranty is replaced at no charge (blind w22-03)."""
    busy = 730.0  # full load: the allowance as measured
    none = own_cost(own_spec(), busy_hours_per_month=busy, months=36).items["maintenance"]
    covered = own_spec(warranty_months=24.0)
    after = own_cost(covered, busy_hours_per_month=busy, months=36).items["maintenance"]
    assert none == pytest.approx(20_000 * 0.1 * 3)
    assert after == pytest.approx(none / 3)
    within = own_cost(covered, busy_hours_per_month=busy, months=12).items["maintenance"]
    assert within == 0.0


def test_pue_and_tariff_scale_electricity() -> None:
    a = own_cost(own_spec(), 100.0, 12).items["electricity"]
    b = own_cost(own_spec(pue=1.5, tariff_per_kwh=2.0), 100.0, 12).items["electricity"]
    assert b == pytest.approx(3 * a)


def test_machine_idles_the_rest_of_the_day_by_default() -> None:
    cost = own_cost(own_spec(), busy_hours_per_month=100.0, months=1)
    assert cost.details["idle_hours"] == pytest.approx(HOURS_PER_MONTH - 100)


def test_unknown_power_and_host_are_unpriced_not_free() -> None:
    cost = own_cost(own_spec(gpu_load_w=None, gpu_idle_w=None, host_price=None), 100.0, 12)
    assert "electricity" not in cost.items and "host" not in cost.items
    assert set(cost.unpriced) == {"electricity", "host"}


def test_resale_curve_interpolates_and_holds() -> None:
    curve = ((12.0, 0.6), (24.0, 0.4))
    assert resale_fraction(curve, 0) == 1.0
    assert resale_fraction(curve, 6) == pytest.approx(0.8)
    assert resale_fraction(curve, 18) == pytest.approx(0.5)
    assert resale_fraction(curve, 100) == pytest.approx(0.4)
    user = own_cost(own_spec(resale_fraction_override=0.25), 0.0, 12)
    assert user.items["resale"] == pytest.approx(-2 * 10_000 * 0.25)


def test_psu_sized_from_tdp_with_headroom() -> None:
    # The guide: a 4090 at 450 W wants at least 1,000 W (owning.toml psu_sizing values).
    assert psu_watts(400, 450, 1, 1.1765) >= 1000
    assert psu_watts(400, 450, 2, 1.1765) > psu_watts(400, 450, 1, 1.1765)
    psus = [("small", 1000.0, 150.0), ("big", 2000.0, 600.0), ("bigger", 2400.0, 900.0)]
    assert pick_psu(1200, psus) == "big"
    assert pick_psu(3000, psus) is None


def test_hourly_rent_and_hidden_costs() -> None:
    usage = RentUsage(data_gb=100, egress_gb_per_month=30, public_ip=False)
    cost = rent_cost(rent_spec(), busy_hours_per_month=50.0, months=2, usage=usage)
    assert cost.items["compute"] == pytest.approx(10 * 50 * 2)
    assert cost.items["block_storage"] == pytest.approx(100 * 1.0 * 2)
    assert cost.items["egress"] == pytest.approx((30 - 10) * 0.5 * 2)
    assert cost.total == sum(cost.items.values())


def test_egress_inside_free_allowance_is_zero() -> None:
    cost = rent_cost(rent_spec(), 10.0, 1, RentUsage(egress_gb_per_month=5, public_ip=False))
    assert cost.items["egress"] == 0


def test_unpublished_rates_are_unpriced() -> None:
    usage = RentUsage(data_gb=10, storage="both", egress_gb_per_month=5, snapshot_gb=5, nat=True)
    cost = rent_cost(rent_spec(hidden=HiddenRates()), 10.0, 1, usage)
    assert set(cost.items) == {"compute"}
    assert set(cost.unpriced) == set(HIDDEN_ITEMS)  # every extra item, and only those


def test_committed_billing_pays_whole_periods_whatever_the_use() -> None:
    spec = rent_spec(billing="monthly", price=3000.0, per="month")
    usage = RentUsage(public_ip=False)
    idle = rent_cost(spec, 0.0, 2.5, usage)
    busy = rent_cost(spec, HOURS_PER_MONTH, 2.5, usage)
    assert idle.items["compute"] == busy.items["compute"] == pytest.approx(3 * 3000)
    yearly = rent_spec(billing="reserved-1y", price=1.0, per="hour")
    assert rent_cost(yearly, 1.0, 13, usage).items["compute"] == pytest.approx(
        2 * 12 * HOURS_PER_MONTH
    )


def test_months_after_the_last_whole_term_are_rented_on_demand_where_cheaper() -> None:
    """A 1-year reservation over 18 months: a year reserved and six months on demand, not two
    years (blind w60-04); a two-week tail stays on demand, a long one takes another term."""
    usage = RentUsage(public_ip=False)
    spec = rent_spec(billing="reserved-1y", price=1.0, per="hour", tail_per_hour=1.5)
    busy = HOURS_PER_MONTH  # kept running
    cost = rent_cost(spec, busy, 18, usage)
    assert cost.items["compute"] == pytest.approx(12 * busy + 6 * busy * 1.5)
    assert cost.details["periods"] == 1
    long = rent_cost(spec, busy, 23, usage)  # 11 months at 1.5 cost more than a term
    assert long.items["compute"] == pytest.approx(2 * 12 * busy)
    assert rent_cost(spec, busy, 12, usage).items["compute"] == pytest.approx(12 * busy)


def test_spot_rework_is_half_a_checkpoint_plus_restart_per_interruption() -> None:
    risk = SpotRisk(interruptions_per_hour=0.1, restart_hours=0.25)
    assert rework_hours(100, risk, checkpoint_min=60) == pytest.approx(100 * 0.1 * (0.5 + 0.25))
    spec = rent_spec(billing="spot", spot=risk)
    cost = rent_cost(spec, 100.0, 1, RentUsage(checkpoint_min=60, public_ip=False))
    assert cost.items["spot_rework"] == pytest.approx(10 * 100 * 0.1 * 0.75)
    assert cost.details["interruptions"] == pytest.approx(10)
    longer = rent_cost(spec, 100.0, 1, RentUsage(checkpoint_min=120, public_ip=False))
    assert longer.total > cost.total


def test_break_even_hours_solves_the_line() -> None:
    def own(h: float) -> float:
        return 1000 + 10 * h

    def rent(h: float) -> float:
        return 60 * h

    hours, always = break_even_hours(own, rent)
    assert hours == pytest.approx(20) and always is None
    assert break_even_hours(own, lambda h: 5 * h) == (None, "rent")
    assert break_even_hours(own, lambda h: 2000 + 50 * h) == (None, "own")


def test_fx_convert_and_override() -> None:
    fx = Fx({"USD": 1.0, "CNY": 7.0}, {}, {})
    assert fx.convert(7.0, "CNY", "USD") == pytest.approx(1.0)
    assert fx.convert(2.0, "USD", "CNY") == pytest.approx(14.0)
    with pytest.raises(UserError):
        fx.convert(1.0, "JPY", "USD")
    assert build_fx([], cny_per_usd=7.3).rate("CNY") == 7.3
    with pytest.raises(UserError):
        build_fx([], cny_per_usd=-1)


def test_stale_after_180_days() -> None:
    today = dt.date(2026, 12, 2)
    assert not is_stale(today - dt.timedelta(days=180), today)
    assert is_stale(today - dt.timedelta(days=181), today)
    assert not is_stale(None, today)  # undated is "date unknown" (PriceRef.undated), not stale


def test_busy_hours_per_month() -> None:
    assert busy_hours_per_month(24) == pytest.approx(HOURS_PER_MONTH)


def test_thousands_of_calls_are_fast() -> None:
    """The planner prices many candidates: plain arithmetic over pre-resolved specs."""
    own = own_spec()
    rent = rent_spec(billing="spot", spot=SpotRisk(0.04, 0.2))
    usage = RentUsage(data_gb=500, egress_gb_per_month=50)
    start = time.perf_counter()
    for i in range(2000):
        own_cost(own, float(i % 700), 24)
        rent_cost(rent, float(i % 700), 24, usage)
    assert time.perf_counter() - start < 0.3


def test_each_session_bills_its_start_up_and_a_spot_restart_is_one_more_session() -> None:
    usage = RentUsage(public_ip=False, data_gb=0, session_hours=0.25, sessions=50)
    cost = rent_cost(rent_spec(), 0.1 * 50, 1, usage)
    assert cost.items["session_overhead"] == pytest.approx(10.0 * 0.25 * 50)
    assert cost.details["sessions"] == 50
    risk = SpotRisk(interruptions_per_hour=0.1, restart_hours=0.25)
    spot = rent_cost(rent_spec(billing="spot", spot=risk), 100.0, 1, usage)
    assert spot.details["sessions"] == pytest.approx(50 + 10)
    # the restart is billed as a session, so the rework keeps only the lost half-checkpoint
    assert spot.items["spot_rework"] == pytest.approx(10.0 * 10 * 0.25)


def test_a_kept_running_rental_pays_its_start_up_once_inside_its_periods() -> None:
    usage = RentUsage(public_ip=False, session_hours=0.25, sessions=50)
    spec = rent_spec(billing="monthly", price=3000.0, per="month")
    cost = rent_cost(spec, 10.0, 1, usage)
    assert cost.details["sessions"] == 1
    assert "session_overhead" not in cost.items
    assert cost.items["compute"] == pytest.approx(3000.0)


def test_without_session_figures_the_bill_is_unchanged() -> None:
    cost = rent_cost(rent_spec(), 10.0, 1, RentUsage(public_ip=False))
    assert "session_overhead" not in cost.items and "sessions" not in cost.details


def test_a_break_even_is_where_owning_stays_cheaper_not_a_passing_month() -> None:
    """Resale is worth most in the first months: owning cheaper in month 1 and dearer by the
    horizon has not broken even (a 12-month plan read 'breaks even in month 1')."""
    from gpuwise.cost.compare import _break_even_month

    early_only = {1, 2}
    assert _break_even_month(lambda m: m in early_only, 12) is None
    assert _break_even_month(lambda m: m in early_only or m >= 9, 12) == 9
    assert _break_even_month(lambda m: m >= 15, 12) == 15  # past the horizon: first month
    assert _break_even_month(lambda m: True, 12) == 1
