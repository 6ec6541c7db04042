"""The resale curve (gpuwise.cost.resale): monotone, averaged, fallbacks stated, thin curves
haircut, a sourced tail past the data, and the credit it gives in an owning bill."""

from __future__ import annotations

import datetime as dt
import itertools
from dataclasses import replace

import pytest

from gpuwise.catalog import Catalog
from gpuwise.catalog.schema_extra import ResalePoint
from gpuwise.cost.own import own_cost
from gpuwise.cost.power import assumption
from gpuwise.cost.resale import (
    Observation,
    all_observations,
    build_curve,
    fraction_at,
    lower_envelope,
    monotone_knots,
    resale_curve,
)
from gpuwise.cost.resolve import Context, OwnOptions, resolve_own
from gpuwise.i18n import messages


def _obs(months: float, fraction: float) -> Observation:
    return Observation("x", months, fraction, "s")


def test_same_age_points_are_averaged() -> None:
    assert monotone_knots([_obs(12, 0.6), _obs(12.3, 0.4)]) == ((12.0, 0.5),)


def test_a_later_higher_point_never_lifts_the_curve() -> None:
    knots = monotone_knots([_obs(12, 0.5), _obs(24, 0.7), _obs(36, 0.3)])
    assert knots == ((12.0, 0.5), (24.0, 0.5), (36.0, 0.3))


def test_every_card_curve_is_monotone_and_below_launch_price(cat: Catalog) -> None:
    for gpu in cat.gpus:
        curve = resale_curve(cat, gpu)
        assert curve is not None, gpu.id
        shares = [curve.at(m) for m in range(0, 181, 3)]
        assert shares[0] == 1.0
        assert all(0 <= b <= a <= 1.0 for a, b in itertools.pairwise(shares)), gpu.id


def test_tail_declines_at_the_catalog_rate_past_the_last_point(cat: Catalog) -> None:
    rate = assumption(cat, "resale_tail_annual_decline").value
    assert 0 < rate < 1
    knots = ((12.0, 0.6), (36.0, 0.3))
    assert fraction_at(knots, 36, rate) == pytest.approx(0.3)
    assert fraction_at(knots, 48, rate) == pytest.approx(0.3 * (1 - rate))
    assert fraction_at(knots, 60, rate) == pytest.approx(0.3 * (1 - rate) ** 2)
    assert fraction_at(knots, 24, rate) == pytest.approx(0.45)  # interpolated, not tailed


def test_lower_envelope_is_never_above_either_curve() -> None:
    a, b = ((12.0, 0.8), (36.0, 0.2)), ((24.0, 0.4),)
    env = lower_envelope(a, b, 0.29)
    for m in range(0, 120):
        low = min(fraction_at(a, m, 0.29), fraction_at(b, m, 0.29))
        assert fraction_at(env, m, 0.29) <= low + 1e-9


def test_fallbacks_are_stated_narrowest_first(cat: Catalog) -> None:
    own = resale_curve(cat, cat.gpu("h100-sxm"))
    assert own and own.basis == "card" and own.cards == ("h100-sxm",) and own.points >= 3
    same_vendor = resale_curve(cat, cat.gpu("rtx-4060-ti-16gb"))
    assert same_vendor and same_vendor.basis == "vendor_class"
    assert "rtx-4060-ti-16gb" not in same_vendor.cards and "rtx-3090" in same_vendor.cards
    same_class = resale_curve(cat, cat.gpu("mi300x"))
    assert same_class and same_class.basis == "class"
    assert all(cat.gpu(c).vendor != "amd" for c in same_class.cards)
    anything = resale_curve(cat, cat.gpu("rtx-a6000"))
    assert anything and anything.basis == "all"


def test_shortage_premiums_above_launch_price_are_not_used(cat: Catalog) -> None:
    curve = resale_curve(cat, cat.gpu("rtx-4090"))
    assert curve and all(f <= 1 for _, f in curve.knots)
    assert "rtx-4090" not in curve.cards  # its only used prices are above its launch price


def _with_points(cat: Catalog, *points: ResalePoint) -> Catalog:
    return cat.with_part("extra:resale", (*cat.extra("resale"), *points))


def test_a_single_generous_workstation_point_is_haircut(cat: Catalog) -> None:
    """One RTX A6000 sale at 80% after 33 months must not become the workstation curve."""
    point = ResalePoint(
        gpu="rtx-a6000",
        date=dt.date(2023, 7, 1),
        months_since_launch=33,
        fraction_of_launch=0.80,
        source="gpupoet-2026-01",
    )
    changed = _with_points(cat, point)
    curve = build_curve(changed, changed.gpu("rtx-a6000"))
    assert curve and curve.basis == "card" and curve.points == 1
    assert curve.haircut is not None
    everything = build_curve(changed, changed.gpu("rtx-pro-6000-blackwell"))
    assert everything
    assert curve.at(33) <= 0.5 < 0.80
    assert curve.at(33) <= everything.at(33) + 1e-9


def test_a_thin_card_curve_is_capped_by_its_vendor_and_class(cat: Catalog) -> None:
    l40s = resale_curve(cat, cat.gpu("l40s"))
    wider = resale_curve(cat, cat.gpu("h200"))
    assert l40s and l40s.basis == "card" and l40s.points < 3
    assert l40s.haircut == "vendor_class"
    assert wider and wider.basis == "vendor_class"
    for m in (12, 24, 32, 48):
        assert l40s.at(m) <= wider.at(m) + 1e-9
    assert l40s.at(32) < 0.8  # the one observation said 0.83 at 32 months


def test_a_class_without_data_rests_on_the_worst_class(cat: Catalog) -> None:
    pro = resale_curve(cat, cat.gpu("rtx-pro-6000-blackwell"))
    assert pro and pro.basis == "all" and pro.haircut == "worst_class"
    tail = pro.tail_annual_decline
    by_id = {g.id: g for g in cat.gpus}
    for cls in ("consumer", "datacenter"):
        obs = [o for o in all_observations(cat) if by_id[o.gpu].gpu_class == cls]
        assert len(obs) >= 3
        knots = monotone_knots(obs)
        for m in (12, 24, 36, 60):
            assert pro.at(m) <= fraction_at(knots, m, tail) + 1e-9, (cls, m)
    everything = monotone_knots(all_observations(cat))
    assert pro.at(32) < fraction_at(everything, 32, tail)


def test_resale_credit_is_its_own_line_with_share_age_and_sources(
    cat: Catalog, usd: Context
) -> None:
    own = resolve_own(cat, usd, "h100-sxm", 1)
    cost = own_cost(own.spec, 200, 24)
    end_age = own.spec.resale_age_months + 24
    share = fraction_at(own.spec.resale_curve, end_age, own.spec.resale_tail_annual)
    expected = min(own.spec.resale_base_per_card * share, own.spec.card_price)
    assert cost.items["resale"] == pytest.approx(-expected)
    assert cost.details["resale_pct"] == pytest.approx(100 * share)
    assert cost.details["resale_age_months"] == pytest.approx(end_age)
    notes = [n for n in own.notes if n.key.startswith("cost.note_resale_basis_")]
    assert notes and "own-glri-residuals-2026" in dict(notes[0].params)["sources"]


def test_resale_never_exceeds_the_price_paid(cat: Catalog, usd: Context) -> None:
    own = resolve_own(cat, usd, "rtx-3090", 2, OwnOptions(card_price=100))
    cost = own_cost(own.spec, 100, 1)
    assert -cost.items["resale"] <= cost.items["cards"]
    assert cost.total >= 0


def test_owned_card_upkeep_is_charged_on_its_used_value_not_more(
    cat: Catalog, usd: Context
) -> None:
    """An owned card's allowance rests on what it fetches today, capped by its price."""
    own = resolve_own(cat, usd, "rtx-4090", 1, OwnOptions(owned=True))
    cost = own_cost(own.spec, 730, 12)
    rate = own.spec.maintenance_annual_fraction
    assert cost.items["maintenance"] <= own.spec.card_price * rate + 1e-6
    used = own.spec.resale_base_per_card * fraction_at(
        own.spec.resale_curve, own.spec.resale_age_months, own.spec.resale_tail_annual
    )
    assert cost.items["maintenance"] <= used * rate + 1e-6
    assert "resale" not in cost.items


def test_user_share_overrides_the_curve(cat: Catalog, usd: Context) -> None:
    own = resolve_own(cat, usd, "rtx-4090", 1, OwnOptions(resale_pct=10))
    cost = own_cost(replace(own.spec), 100, 12)
    assert cost.items["resale"] == pytest.approx(-0.1 * own.spec.card_price)
    assert cost.details["resale_pct"] == pytest.approx(10)


def test_every_resale_note_exists_in_both_languages() -> None:
    texts = messages()
    keys = [f"cost.note_resale_basis_{b}" for b in ("card", "vendor_class", "class", "all")]
    keys += [f"cost.note_resale_haircut_{b}" for b in ("vendor_class", "class", "all")]
    keys += ["cost.note_resale_haircut_worst_class", "cost.item_resale_pct"]
    for key in keys:
        assert texts[key]["en"] and texts[key]["zh"], key
