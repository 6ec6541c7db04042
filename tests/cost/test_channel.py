"""Issues 26 and 29: which purchase channel a buyer uses. A company or institution buys new with
warranty (a shop's, distributor's or maker's price); a person may buy second-hand where the
catalog has a market price. The blind review priced a hospital's T4s at an eBay listing."""

from __future__ import annotations

import pytest

from gpuwise.catalog import Catalog
from gpuwise.cost.channel import card_price, only_second_hand
from gpuwise.cost.resolve import Context, OwnOptions, resolve_own
from gpuwise.errors import UserError
from gpuwise.i18n import t

COMPANY = OwnOptions(buyer="company")


def test_company_buyer_is_never_priced_at_a_used_listing(cat: Catalog) -> None:
    """Over the whole catalog: the price a company pays is new (list, shop or distributor)."""
    for g in cat.gpus:
        chosen = card_price(g, "company", "USD")
        assert chosen is None or chosen.bought_as == "new", g.id


def test_company_t4_is_unpriced_where_a_person_pays_the_ebay_price(
    cat: Catalog, usd: Context
) -> None:
    """The T4 is sold only second-hand in the catalog: a person pays the eBay price and is told
    so; a company gets no price and a message asking for a distributor's quote."""
    person = resolve_own(cat, usd, "t4", 1)
    used = next(n for n in person.notes if n.key.startswith("cost.note_card_"))
    assert used.key == "cost.note_card_used"
    assert dict(used.params)["channel"] == "marketplace"
    assert only_second_hand(cat.gpu("t4"), "company")
    with pytest.raises(UserError) as err:
        resolve_own(cat, usd, "t4", 1, COMPANY)
    assert err.value.key == "cost.no_new_card_price"


def test_company_pays_the_new_street_price_not_the_marketplace_one(
    cat: Catalog, usd: Context
) -> None:
    """The RX 9070 XT's street price is a marketplace best deal of unstated condition: a person
    pays it, a company the launch (list) price."""
    gpu = cat.gpu("rx-9070-xt")
    person = resolve_own(cat, usd, gpu.id, 1)
    company = resolve_own(cat, usd, gpu.id, 1, COMPANY)
    mixed = [p for p in gpu.prices if p.kind == "street" and p.bought_as == "mixed"]
    assert mixed and person.spec.card_price == pytest.approx(usd.money(mixed[0].amount, "USD"))
    launch = next(p for p in gpu.prices if p.kind == "launch")
    assert company.spec.card_price == pytest.approx(usd.money(launch.amount, launch.currency))
    note = next(n for n in company.notes if n.key.startswith("cost.note_card_"))
    assert note.key == "cost.note_card_new" and dict(note.params)["channel"] == "list"


def test_the_note_names_channel_and_price_in_both_languages(cat: Catalog, usd: Context) -> None:
    """The text says which channel and price were used, never a raw id."""
    own = resolve_own(cat, usd, "rtx-5090", 1, COMPANY)
    note = next(n for n in own.notes if n.key == "cost.note_card_new")
    params = dict(note.params)
    assert params["channel"] == "retail" and params["source"]
    for lang in ("en", "zh"):
        words = t(f"channel.{params['channel']}", lang=lang)
        text = t(note.key, lang=lang, **{**params, "channel": words})
        assert words in text and str(params["amount"]).split(".")[0] in text


def test_mac_studio_and_workstation_cards_have_a_new_price(cat: Catalog) -> None:
    """The machines and cards an institution or a local-model user buys are priced new."""
    for gpu_id in (
        "apple-m3-ultra-256gb",
        "apple-m4-max-36gb",
        "rtx-pro-6000-blackwell",
        "rtx-pro-6000-blackwell-max-q",
        "rtx-6000-ada",
        "rtx-a6000",
        "l40s",
    ):
        chosen = card_price(cat.gpu(gpu_id), "company", "USD")
        assert chosen is not None and chosen.bought_as == "new", gpu_id
        assert chosen.source in cat.sources, gpu_id


def test_a_card_no_longer_made_is_not_sold_new_at_its_launch_price() -> None:
    """Blind w34-04: a company was priced an RTX 4090 at its 2022 list price in 2026. After the
    production ended, a new-only buyer pays only a new price seen after that day; a person
    still pays the used price; a distributor's later new price still counts."""
    import datetime as dt

    from gpuwise.catalog.schema import Gpu, Price

    launch = Price(
        kind="launch", amount=1599, currency="USD", date=dt.date(2022, 10, 12), source="s"
    )
    used = Price(kind="used", amount=1850, currency="USD", date=dt.date(2026, 4, 6), source="s")
    late = Price(
        kind="street",
        amount=2400,
        currency="USD",
        date=dt.date(2025, 6, 1),
        source="s",
        condition="new",
    )
    base = {
        "id": "x",
        "name": "X",
        "vendor": "nvidia",
        "class": "consumer",
        "release_year": 2022,
        "memory_gb": 24,
        "pcie_gen": 4,
        "source": "s",
    }
    made = Gpu.model_validate({**base, "prices": [launch, used]})
    ended = made.model_copy(update={"production_ended": dt.date(2024, 10, 1)})
    assert card_price(made, "company", "USD") == launch
    assert card_price(ended, "company", "USD") is None
    assert only_second_hand(ended, "company")
    assert card_price(ended, "individual", "USD") == used
    stock = ended.model_copy(update={"prices": [launch, used, late]})
    assert card_price(stock, "company", "USD") == late
