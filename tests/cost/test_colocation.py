"""An owned server in a rented colocation rack pays the region's rent per contracted kW
(catalog `colocation`, cost.power.colocation_rent), with the electricity on top where the
rent excludes it (US, EU wholesale practice) and none where it includes it (a Chinese IDC
rack); a machine on its owner's premises pays no rent."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpuwise.catalog import Catalog
from gpuwise.cost.own import own_cost
from gpuwise.cost.power import colocation_of, colocation_rent
from gpuwise.cost.resolve import Context, OwnOptions, resolve_own
from gpuwise.cost.system import resolve_system
from gpuwise.errors import UserError

MONTHS = 36.0


def _rate(cat: Catalog, region: str) -> object:
    return next(r for r in cat.extra("colocation") if r.region == region)


def test_rent_is_the_rate_times_the_peak_kw(cat: Catalog, usd: Context) -> None:
    opts = OwnOptions(site="colocation", region="us", payer="business", workload="serve")
    own = resolve_own(cat, usd, "rtx-pro-6000-blackwell", 4, opts)
    gpu = cat.gpu("rtx-pro-6000-blackwell")
    peak_kw = ((gpu.tdp_w or 0.0) * 4 + own.spec.host_load_w) / 1000
    rate = _rate(cat, "us")
    assert own.spec.colocation_per_month == pytest.approx(rate.per_kw_month * peak_kw)  # type: ignore[attr-defined]
    cost = own_cost(own.spec, 730, MONTHS)
    assert cost.items["colocation"] == pytest.approx(own.spec.colocation_per_month * MONTHS)
    assert cost.items["electricity"] > 0  # the US rate excludes power
    assert any(p.label == "colocation:us-colocation" for p in own.prices)


def test_a_rack_with_power_in_its_rent_bills_no_electricity(cat: Catalog, cny: Context) -> None:
    opts = OwnOptions(site="colocation", region="cn", payer="business", workload="serve")
    own = resolve_own(cat, cny, "rtx-4090", 2, opts)
    assert own.spec.power_in_rent
    cost = own_cost(own.spec, 730, MONTHS)
    assert cost.items["colocation"] > 0 and "electricity" not in cost.items
    assert "electricity" not in cost.unpriced


def test_own_premises_pay_no_rent(cat: Catalog, usd: Context) -> None:
    for site in ("office", "server-room", "datacenter"):
        own = resolve_own(cat, usd, "l40s", 4, OwnOptions(site=site, region="us"))
        assert own.spec.colocation_per_month == 0
        assert "colocation" not in own_cost(own.spec, 730, MONTHS).items


def test_a_whole_system_is_contracted_at_all_its_devices(cat: Catalog, usd: Context) -> None:
    system = next(x for x in cat.extra("system") if x.gpus == 8)
    opts = OwnOptions(site="colocation", region="us", payer="business")
    two = resolve_system(cat, usd, system, 1, 2, opts)
    eight = resolve_system(cat, usd, system, 1, 8, opts)
    assert two.spec.colocation_per_month == pytest.approx(eight.spec.colocation_per_month)
    assert two.spec.colocation_per_month > 0


def test_rates_follow_the_region_then_the_currency(cat: Catalog, usd: Context) -> None:
    """Germany lies in the EU's rate; a region with none falls back to the currency's home."""
    de = colocation_rent(cat, usd, "de", 1000.0)
    eu = colocation_rent(cat, usd, "eu", 1000.0)
    assert de is not None and eu is not None and de[0] == eu[0]
    fallback = colocation_rent(cat, usd, "global", 1000.0)
    assert fallback is not None and fallback[1].label == "colocation:us-colocation"


def test_no_rate_is_an_error_not_a_free_rack(cat: Catalog, usd: Context) -> None:
    without = cat.with_part("extra:colocation", ())
    with pytest.raises(UserError) as err:
        colocation_of(without, usd, "colocation", "us", 1000.0, [])
    assert err.value.key == "cost.no_colocation_rate"


def test_an_owned_host_moves_into_the_rack_too(cat: Catalog, usd: Context) -> None:
    """A PC the user owns is charged no power at home, but in a rack its draw is contracted."""
    base = OwnOptions(site="colocation", region="us", payer="business", workload="serve")
    bought = resolve_own(cat, usd, "l40s", 4, base)
    owned = resolve_own(cat, usd, "l40s", 4, replace(base, owned=True, host_owned=True))
    assert owned.spec.colocation_per_month == pytest.approx(bought.spec.colocation_per_month)


def test_a_card_without_a_power_figure_leaves_the_rent_unpriced(cat: Catalog, cny: Context) -> None:
    gpu = next(g for g in cat.gpus if g.tdp_w is None and not g.rent_only and g.max_per_host >= 1)
    opts = OwnOptions(site="colocation", region="cn", payer="business", card_price=1000.0)
    own = resolve_own(cat, cny, gpu.id, 1, opts)
    cost = own_cost(own.spec, 730, MONTHS)
    assert "colocation" in cost.unpriced and "colocation" not in cost.items


def test_a_rack_is_metered_at_business_rates_whoever_rents_it(cat: Catalog, usd: Context) -> None:
    """A person's server in a colocation rack pays the data centre's business rate, not a
    household tariff, on `gpuwise cost` as in a plan."""
    home = resolve_own(cat, usd, "l40s", 2, OwnOptions(site="office", region="us"))
    rack = resolve_own(cat, usd, "l40s", 2, OwnOptions(site="colocation", region="us"))
    tariffs = {p.label for p in (*home.prices, *rack.prices) if p.label.startswith("tariff:")}
    assert any("residential" in t for t in tariffs) and any("commercial" in t for t in tariffs)


@pytest.mark.parametrize(
    ("region", "rate_id"),
    [
        ("india", "india-colocation"),
        ("singapore", "singapore-colocation"),
        ("japan", "japan-colocation"),
        ("korea", "asia-pacific-colocation"),  # no rate of its own: the region it lies in
    ],
)
def test_an_asia_pacific_country_pays_its_own_rent_or_its_regions(
    cat: Catalog, usd: Context, region: str, rate_id: str
) -> None:
    """A rack in Chennai is not priced at a US rate (blind w39-02: an Indian deployment paid
    $290 per kW a month, three times South India's charges)."""
    found = colocation_rent(cat, usd, region, 1000.0)
    assert found is not None
    rent, ref = found
    assert ref.label == f"colocation:{rate_id}"
    rate = next(r for r in cat.extra("colocation") if r.id == rate_id)
    assert rent.per_month == pytest.approx(rate.per_kw_month)  # USD rates, 1 kW
