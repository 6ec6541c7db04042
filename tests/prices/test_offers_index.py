"""The plain offer index that `gpuwise offers` reads says what the typed catalog says."""

from __future__ import annotations

import datetime as dt
import typing

from gpuwise.catalog import load_catalog
from gpuwise.catalog.schema_cloud import BILLINGS, Billing
from gpuwise.cost.offers import list_offers
from gpuwise.cost.plain_context import plain_context
from gpuwise.cost.resolve import make_context
from gpuwise.prices import offer_query
from gpuwise.prices.index import build_index, load_index


def test_billings_match_the_schema() -> None:
    assert offer_query.BILLINGS == BILLINGS == typing.get_args(Billing)


def test_index_rows_equal_catalog_rows() -> None:
    cat = load_catalog()
    ctx = make_context(cat, "CNY", dt.date(2026, 12, 2))
    typed = [r.as_dict() for r in list_offers(cat, ctx, region="cn")]
    index = load_index()
    plain_ctx = plain_context(index, "CNY", dt.date(2026, 12, 2), None)
    plain = [r.as_dict() for r in offer_query.query(index, plain_ctx, region="cn")]
    assert typed == plain and len(plain) > 20
    assert load_index() == build_index(cat)  # cached copy equals a fresh build


def test_offers_command_never_loads_the_typed_catalog(cli) -> None:  # type: ignore[no-untyped-def]
    assert cli("offers", "--json").code == 0  # builds the index once (through the catalog)
    from gpuwise.catalog import catalog as C

    C._loaded.clear()
    res = cli("offers", "--gpu", "a100-80gb", "--json")
    assert res.code == 0 and res.json()["offers"]
    assert not C._loaded  # answered from the plain index alone
