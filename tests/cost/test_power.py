"""Owned hardware costs what it draws: workload share of TDP, host sized to the host, PUE only in
a server room or data centre, the tariff of whoever pays the bill (issue 26, item 4)."""

from __future__ import annotations

import pytest

from gpuwise.catalog import Catalog
from gpuwise.cost.model import busy_hours_per_month
from gpuwise.cost.own import own_cost
from gpuwise.cost.power import assumption, default_tariff, server_ratio
from gpuwise.cost.resolve import Context, OwnOptions, resolve_own
from gpuwise.errors import UserError


def _tariff_id(own: object) -> str:
    refs = [p.label for p in own.prices if p.label.startswith("tariff:")]  # type: ignore[attr-defined]
    assert len(refs) == 1, refs
    return refs[0].removeprefix("tariff:")


def test_busy_draw_is_the_workloads_share_of_tdp_not_the_tdp(cat: Catalog, usd: Context) -> None:
    tdp = cat.gpu("rtx-4090").tdp_w
    assert tdp
    train = resolve_own(cat, usd, "rtx-4090", 1, OwnOptions(workload="train")).spec
    serve = resolve_own(cat, usd, "rtx-4090", 1, OwnOptions(workload="serve")).spec
    assert train.gpu_load_w == pytest.approx(tdp * 0.75)  # Epoch AI: 0.75 of TDP in training
    assert serve.gpu_load_w == pytest.approx(tdp * 0.70)  # Oviedo et al.: 0.7 of P_max serving
    assert train.gpu_idle_w == 21  # measured idle figure wins


def test_datacenter_cards_idle_at_their_class_share(cat: Catalog, usd: Context) -> None:
    a100 = cat.gpu("a100-80gb")
    spec = resolve_own(cat, usd, "a100-80gb", 1).spec
    share = assumption(cat, "datacenter_gpu_idle_fraction_of_tdp").value
    assert a100.tdp_w and spec.gpu_idle_w == pytest.approx(a100.tdp_w * share)


def test_server_host_is_sized_to_its_gpus_not_a_dgx_h100(cat: Catalog, usd: Context) -> None:
    v100 = cat.gpu("v100-32gb")
    spec = resolve_own(cat, usd, "v100-32gb", 4, OwnOptions(owned=True, workload="train")).spec
    assert v100.tdp_w and server_ratio(cat, v100) == pytest.approx(1.667)
    assert spec.host_load_w == pytest.approx((1.667 - 1) * 4 * v100.tdp_w * 0.75)
    h100 = resolve_own(cat, usd, "h100-sxm", 8, OwnOptions(workload="train")).spec
    assert h100.host_load_w > 4 * spec.host_load_w  # eight 700 W modules need far more host


def test_owned_v100s_not_billed_at_4_76_kw(cat: Catalog, cny: Context) -> None:
    """Regression: 4 owned V100s serving 24/7 were billed at 4.76 kW average (TDP x 0.996, a
    DGX H100's host per module and a data-centre PUE) and lost to buying two new cards."""
    opts = OwnOptions(owned=True, workload="serve", site="office", payer="business")
    own = resolve_own(cat, cny, "v100-32gb", 4, opts)
    cost = own_cost(own.spec, busy_hours_per_month(24), 24)
    kw = cost.details["energy_kwh"] / cost.details["busy_hours"]
    assert own.spec.pue == 1.0
    assert 0.9 <= kw <= 1.5, kw  # a DGX Station V100 (4 modules) is rated 1.5 kW in all


@pytest.mark.parametrize(
    ("site", "pue"), [(None, 1.0), ("home", 1.0), ("office", 1.0), ("server-room", 1.8)]
)
def test_pue_only_where_the_machine_sits_in_a_server_room(
    cat: Catalog, usd: Context, site: str | None, pue: float
) -> None:
    spec = resolve_own(cat, usd, "h100-sxm", 8, OwnOptions(site=site)).spec
    assert spec.pue == pytest.approx(pue)


def test_datacenter_site_and_explicit_pue(cat: Catalog, usd: Context) -> None:
    dc = resolve_own(cat, usd, "h100-sxm", 8, OwnOptions(site="datacenter")).spec
    assert dc.pue == pytest.approx(1.58)
    mine = resolve_own(cat, usd, "h100-sxm", 8, OwnOptions(site="home", pue="1.3")).spec
    assert mine.pue == pytest.approx(1.3)  # the user's PUE wins over the site
    with pytest.raises(UserError) as err:
        resolve_own(cat, usd, "rtx-4090", 1, OwnOptions(site="garage"))
    assert err.value.key == "cost.unknown_site"


@pytest.mark.parametrize(
    ("currency", "payer", "region", "tariff"),
    [
        ("CNY", "household", "cn", "cn-residential"),
        ("CNY", "business", "cn", "cn-commercial"),
        ("USD", "business", "us", "us-commercial"),
        ("USD", "household", None, "us-residential"),
        ("EUR", "business", "eu", "eu-commercial"),
        ("EUR", "business", "DE", "de-commercial"),
        ("EUR", "household", "DE", "de-residential"),
        ("USD", "business", "asia-pacific", "apac-business"),
        # a country named by word finds its own tariff (blind w22-05: Bengaluru; w43-01: Tokyo)
        ("USD", "household", "india", "in-residential"),
        ("USD", "business", "japan", "jp-business"),
        ("USD", "business", "singapore", "apac-business"),  # no business figure: its region's
        ("USD", "business", "vietnam", "vn-business"),
        ("USD", "business", "any", "us-commercial"),
        # a US state pays its own (blind w52-03: a Californian was charged the US average)
        ("USD", "household", "california", "us-ca-residential"),
        ("USD", "business", "New York", "us-ny-commercial"),
        ("USD", "household", "加州", "us-ca-residential"),
        ("USD", "household", "us", "us-residential"),
    ],
)
def test_a_company_is_not_a_household(
    cat: Catalog, currency: str, payer: str, region: str | None, tariff: str
) -> None:
    assert default_tariff(cat, currency, payer, region) == tariff  # type: ignore[arg-type]


def test_company_tariff_reaches_the_bill(cat: Catalog, cny: Context) -> None:
    home = resolve_own(cat, cny, "rtx-4090", 1, OwnOptions(payer="household", region="cn"))
    firm = resolve_own(cat, cny, "rtx-4090", 1, OwnOptions(payer="business", region="cn"))
    assert _tariff_id(home) == "cn-residential" and _tariff_id(firm) == "cn-commercial"
    assert firm.spec.tariff_per_kwh != home.spec.tariff_per_kwh


def test_pc_already_owned_is_charged_only_the_cards_power(cat: Catalog, usd: Context) -> None:
    own = resolve_own(cat, usd, "rtx-4090", 1, OwnOptions(host_price=0.0, host_owned=True))
    assert own.spec.host_load_w == 0 and own.spec.host_idle_w == 0
    assert own.spec.gpu_load_w and own.spec.gpu_load_w > 0
    assert any(n.key == "cost.note_host_not_charged" for n in own.notes)


def test_owned_card_without_price_has_no_opportunity_value(cat: Catalog, cny: Context) -> None:
    own = resolve_own(cat, cny, "v100-32gb", 4, OwnOptions(owned=True))
    cost = own_cost(own.spec, 100.0, 12)
    assert "opportunity_value" not in cost.details  # not "would fetch about 0.00"


@pytest.mark.parametrize(
    ("region", "currency", "months"),
    [("us", "USD", 12), ("DE", "EUR", 24), ("DE", "USD", 24), ("eu", "EUR", 24)],
)
def test_a_countrys_warranty_is_its_regions_legal_minimum(
    cat: Catalog, region: str, currency: str, months: float
) -> None:
    """Apple's one year, or the EU's two-year guarantee wherever the country lies in the EU
    (the tariffs' region chain: DE lies in eu)."""
    from gpuwise.cost.resolve import warranty_months

    assert warranty_months(cat, "apple", region, currency) == months
