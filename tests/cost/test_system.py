"""Owning whole systems: one price for cards and host, idle devices drawing idle power, prices
for the buyer's market only, and `cost --own` for parts sold only in systems."""

from __future__ import annotations

import pytest

from gpuwise.catalog import Catalog
from gpuwise.catalog.systems import find_system
from gpuwise.cost.own import energy_kwh, own_cost
from gpuwise.cost.resolve import Context
from gpuwise.cost.system import as_system_cost, resolve_purchase, resolve_system
from gpuwise.errors import UserError


def _system(cat: Catalog, name: str):  # type: ignore[no-untyped-def]
    found = find_system(cat, name)
    assert found is not None, name
    return found


def test_system_price_covers_cards_and_host(cat: Catalog, usd: Context) -> None:
    dgx = _system(cat, "dgx-h100")
    own = resolve_system(cat, usd, dgx, 1, None, None, "global")
    list_price = next(p.amount for p in dgx.prices if p.market == "global")
    assert own.spec.count == dgx.gpus
    assert own.spec.card_price * dgx.gpus == pytest.approx(list_price)
    assert own.spec.host_price == 0.0
    cost = as_system_cost(own_cost(own.spec, 200.0, 12), own.system_priced)
    assert cost.items["system"] == pytest.approx(list_price)
    assert "cards" not in cost.items and "host" not in cost.items
    assert not cost.unpriced


def test_idle_devices_draw_idle_power_not_load(cat: Catalog, usd: Context) -> None:
    """2 of 8 devices busy: the other 6 draw idle power, so the busy draw is far below 8 busy."""
    dgx = _system(cat, "dgx-h100")
    two = resolve_system(cat, usd, dgx, 1, 2, None, "global").spec
    eight = resolve_system(cat, usd, dgx, 1, 8, None, "global").spec
    assert two.gpu_load_w is not None and eight.gpu_load_w is not None and two.gpu_idle_w
    busy_two = two.count * two.gpu_load_w
    assert busy_two == pytest.approx(2 * eight.gpu_load_w + 6 * two.gpu_idle_w)
    assert energy_kwh(two, 100, 0) < energy_kwh(eight, 100, 0)  # type: ignore[operator]


def test_a_china_price_is_not_used_for_a_buyer_elsewhere(cat: Catalog, usd: Context) -> None:
    """A system priced only in China's channel is unpriced for a buyer elsewhere; one priced
    in both markets takes each market's own price (the HGX H200: CNY 1.5M in China, an
    Exxact configuration outside it)."""
    only_cn = [
        s for s in cat.extra("system") if s.prices and {p.market for p in s.prices} == {"cn"}
    ]
    assert only_cn
    glob = resolve_system(cat, usd, only_cn[0], 1, None, None, "global")
    assert not glob.system_priced
    cost = as_system_cost(own_cost(glob.spec, 100.0, 12), glob.system_priced)
    assert "system" in cost.unpriced and "system" not in cost.items
    h200 = _system(cat, "hgx-h200-8gpu")
    cn = resolve_system(cat, usd, h200, 1, None, None, "cn")
    elsewhere = resolve_system(cat, usd, h200, 1, None, None, "global")
    assert cn.system_priced and elsewhere.system_priced
    assert cn.spec.card_price != pytest.approx(elsewhere.spec.card_price)


def test_cost_own_sxm_part_prices_the_system(cat: Catalog, usd: Context) -> None:
    own = resolve_purchase(cat, usd, "h100-sxm", 2)
    assert own.system in ("dgx-h100", "hgx-h100-8gpu")
    assert own.spec.count == 8  # the whole 8-GPU system is bought for 2 cards
    keys = [n.key for n in own.notes]
    assert "cost.note_sold_as_system" in keys and "cost.note_system_idle" in keys


def test_cost_own_named_system_counts_systems(cat: Catalog, usd: Context) -> None:
    own = resolve_purchase(cat, usd, "DGX H100", 2)
    assert own.system == "dgx-h100" and own.systems == 2 and own.spec.count == 16


def test_cost_own_pcie_card_is_unchanged(cat: Catalog, usd: Context) -> None:
    own = resolve_purchase(cat, usd, "rtx-4090", 2)
    assert own.system is None and own.spec.count == 2


def test_cost_own_sxm_part_without_a_system_is_refused(cat: Catalog, usd: Context) -> None:
    with pytest.raises(UserError) as err:
        resolve_purchase(cat, usd, "v100-32gb", 1)
    assert err.value.key == "cost.sold_as_system_none"


def test_cost_own_owned_sxm_cards_need_no_system(cat: Catalog, usd: Context) -> None:
    from gpuwise.cost.resolve import OwnOptions

    own = resolve_purchase(cat, usd, "v100-32gb", 4, OwnOptions(owned=True))
    assert own.system is None and own.spec.owned


def test_cost_cli_refuses_an_sxm_part_without_a_system(cli) -> None:  # type: ignore[no-untyped-def]
    res = cli("cost", "--own", "v100-32gb", "--currency", "USD")
    assert res.code == 2
    assert "v100-32gb" in res.err and "Traceback" not in res.err
    assert len(res.err.strip().splitlines()) == 1


def test_cost_cli_json_names_the_system(cli) -> None:  # type: ignore[no-untyped-def]
    res = cli("cost", "--own", "h100-sxm", "--currency", "USD", "--json")
    assert res.code == 0, res.err
    own = res.json()["options"][0]
    assert own["system"] in ("dgx-h100", "hgx-h100-8gpu") and own["systems"] == 1
    assert "system" in own["items"] and "cards" not in own["items"]
