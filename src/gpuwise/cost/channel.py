"""Which purchase channel a buyer uses, and so which of a card's catalog prices it pays.

An individual buys new or second-hand: the newest street price of any condition (a used
market's asking price where the card is no longer sold new), else the launch price. A company
or institution buys new, from a shop or distributor, with the maker's warranty and an invoice:
it pays only prices the catalog marks new (`Price.bought_as`), else the launch (list) price,
and a card sold only second-hand has no price for it (shown unpriced, never at an eBay
listing). Pure: catalog prices in, one chosen price out.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Literal

from gpuwise.catalog.schema import Price

Buyer = Literal["individual", "company", "institution"]
"""Who buys: a person (any channel) or an organisation (new with warranty only)."""


def buys_used(buyer: Buyer | None) -> bool:
    """Whether this buyer takes second-hand or marketplace prices (None: the CLI's default,
    a person)."""
    return buyer not in ("company", "institution")


def _newest(prices: Sequence[Price], prefer: str) -> Price | None:
    """Newest price, preferring the result currency on the same date (undated ones last)."""
    if not prices:
        return None
    return max(prices, key=lambda p: (p.date or dt.date.min, p.currency == prefer))


def street_price(prices: Sequence[Price], buyer: Buyer | None, prefer: str) -> Price | None:
    """The newest street price this buyer can pay: any for a person, a new one for a company."""
    street = [p for p in prices if p.kind == "street"]
    if not buys_used(buyer):
        street = [p for p in street if p.bought_as == "new"]
    return _newest(street, prefer)


def purchase_price(prices: Sequence[Price], buyer: Buyer | None, prefer: str) -> Price | None:
    """The price this buyer pays per card: its street price, else the launch (list) price;
    None when the card has neither for this buyer."""
    street = street_price(prices, buyer, prefer)
    return street or _newest([p for p in prices if p.kind == "launch"], prefer)


def only_second_hand(prices: Sequence[Price], buyer: Buyer | None) -> bool:
    """A company finds no new price where a person would pay a used or marketplace one: the
    note says so instead of a bare 'unpriced'."""
    return (
        not buys_used(buyer)
        and purchase_price(prices, buyer, "") is None
        and purchase_price(prices, None, "") is not None
    )
