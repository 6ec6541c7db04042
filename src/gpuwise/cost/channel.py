"""Which purchase channel a buyer uses, and so which of a card's catalog prices it pays.

An individual buys new or second-hand: the newest street price of any condition (a used
market's asking price where the card is no longer sold new), or the newest used price where
that is lower, else the launch price. A company
or institution buys new, from a shop or distributor, with the maker's warranty and an invoice:
it pays only prices the catalog marks new (`Price.bought_as`), else the launch (list) price,
and a card sold only second-hand has no price for it (shown unpriced, never at an eBay
listing). A card whose production has ended (catalog `production_ended`) is no longer sold
new at its launch price: for a buyer of new cards only prices seen after that day count (a
distributor's remaining stock), so a company is never priced an RTX 4090 at its 2022 list
price in 2026 (blind w34-04). Pure: catalog prices in, one chosen price out.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Literal

from gpuwise.catalog.schema import Gpu, Price

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


def _launch(prices: Sequence[Price], prefer: str) -> Price | None:
    """The launch price in the buyer's currency where the maker set one (its market's list
    price, taxes as that market quotes them), else the newest: a launch is one event, and an
    RTX 4060 bought in China costs its China list price (CNY 2,399), not the US one converted,
    though the US date is a month later."""
    if not prices:
        return None
    return max(prices, key=lambda p: (p.currency == prefer, p.date or dt.date.min))


def street_price(prices: Sequence[Price], buyer: Buyer | None, prefer: str) -> Price | None:
    """The newest street price this buyer can pay: any for a person, a new one for a company."""
    street = [p for p in prices if p.kind == "street"]
    if not buys_used(buyer):
        street = [p for p in street if p.bought_as == "new"]
    return _newest(street, prefer)


def on_sale_new(prices: Sequence[Price], ended: dt.date | None) -> list[Price]:
    """The prices still payable for a card bought new: all of them while the card is made;
    after its production ended, the used ones and the new ones seen after that day."""
    if ended is None:
        return list(prices)
    return [p for p in prices if p.bought_as != "new" or (p.date is not None and p.date > ended)]


def card_price(gpu: Gpu, buyer: Buyer | None, prefer: str) -> Price | None:
    """The price this buyer pays for one of these cards: purchase_price, over the prices a
    card out of production still has for a buyer of new cards only (a person buys it used, or
    at its old price where the catalog has no used one, and is told the price is old)."""
    if buys_used(buyer):
        return purchase_price(gpu.prices, buyer, prefer)
    return purchase_price(on_sale_new(gpu.prices, gpu.production_ended), buyer, prefer)


def purchase_price(prices: Sequence[Price], buyer: Buyer | None, prefer: str) -> Price | None:
    """The price this buyer pays per card: its street price, else the launch (list) price;
    None when the card has neither for this buyer. A person who buys second-hand pays the
    newest used price where it is lower than the newest street price in the same currency,
    or, in the launch price's currency, where the card has no street price at all (a card out
    of production is not sold at its launch price years later): a used RTX 5090 under a
    budget that a new one is over is a purchase a person makes (blind w16-05). The note says
    second-hand, with no warranty."""
    street = street_price(prices, buyer, prefer)
    fallback = street or _launch([p for p in prices if p.kind == "launch"], prefer)
    used = _newest([p for p in prices if p.kind == "used"], prefer) if buys_used(buyer) else None
    if used is None or fallback is None:
        return fallback or used
    if used.currency != fallback.currency:  # another market's listing: no rates here
        return fallback
    return used if street is None or used.amount < street.amount else street


def only_second_hand(gpu: Gpu, buyer: Buyer | None) -> bool:
    """A company finds no new price where a person would pay a used or marketplace one (a
    card sold only second-hand, or no longer made): the note says so instead of a bare
    'unpriced'."""
    return (
        not buys_used(buyer)
        and card_price(gpu, buyer, "") is None
        and card_price(gpu, None, "") is not None
    )
