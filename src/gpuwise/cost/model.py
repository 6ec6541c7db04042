"""Result and bookkeeping types shared by the cost functions."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from gpuwise.catalog.dating import STALE_AFTER_DAYS as STALE_AFTER_DAYS
from gpuwise.catalog.dating import is_stale as is_stale
from gpuwise.catalog.schema_cloud import HOURS_PER_MONTH

DAYS_PER_MONTH = HOURS_PER_MONTH / 24
"""Days in an average month (730 h / 24 h), so hours per day x DAYS_PER_MONTH = hours a month."""


def busy_hours_per_month(hours_per_day: float, days_per_week: float = 7.0) -> float:
    """Hours of use a month for a daily usage on `days_per_week` days of each week (an average
    month of 730 hours): office hours on weekdays bill 5/7 of every day's."""
    return hours_per_day * DAYS_PER_MONTH * days_per_week / 7.0


@dataclass(frozen=True)
class CostOption:
    """The cost of one option over the horizon.

    `items` are named amounts (in `currency`) whose sum is `total` exactly; an amount may be
    negative (resale). `unpriced` names items the option needs but the catalog has no price
    for: they are left out of the total and shown as "unpriced", never as free.
    """

    label: str
    kind: Literal["own", "rent"]
    currency: str
    months: float
    items: dict[str, float]
    unpriced: tuple[str, ...] = ()
    details: dict[str, float] = field(default_factory=dict)

    @property
    def total(self) -> float:
        """Sum of the items (the same float every time: a fixed order of addition)."""
        return sum(self.items.values())

    @property
    def monthly(self) -> float:
        """Total spread over the months of the horizon."""
        return self.total / self.months if self.months else 0.0


def combined(a: CostOption, b: CostOption) -> CostOption:
    """Two bills of one option as one (`a`'s label, kind and horizon): items added by name, the
    unpriced items of both (an owned card kept beside bought ones, owned machines serving
    beside added ones)."""
    items = dict(a.items)
    for name, amount in b.items.items():
        items[name] = items.get(name, 0.0) + amount
    unpriced = tuple(dict.fromkeys((*a.unpriced, *b.unpriced)))
    return replace(a, items=items, unpriced=unpriced)


@dataclass(frozen=True)
class PriceRef:
    """A price a result rests on, with its date, so every shown price can say how old it is."""

    label: str
    amount: float
    currency: str
    per: str
    date: dt.date | None
    source: str
    stale: bool
    retrieved: dt.date | None = None
    origin: str = "catalog"
    """catalog | feed (a refreshed price feed) | user (the user's own value or quote)."""

    def retrieved_on(self, retrieved: dt.date | None) -> PriceRef:
        """This reference with its source's retrieved date: `replace` without its per-call
        field inspection (a plan dates over a thousand references; tests pin the equality)."""
        return PriceRef(
            self.label,
            self.amount,
            self.currency,
            self.per,
            self.date,
            self.source,
            self.stale,
            retrieved,
            self.origin,
        )

    @property
    def undated(self) -> bool:
        """The source states no date for this price ("date unknown")."""
        return self.date is None

    def as_dict(self) -> dict[str, Any]:
        """JSON shape: `date` is the published date (None: date unknown)."""
        return {
            "label": self.label,
            "amount": self.amount,
            "currency": self.currency,
            "per": self.per,
            "date": self.date.isoformat() if self.date else None,
            "published": self.date.isoformat() if self.date else None,
            "retrieved": self.retrieved.isoformat() if self.retrieved else None,
            "source": self.source,
            "stale": self.stale,
            "undated": self.undated,
            "origin": self.origin,
        }


@dataclass(frozen=True)
class Note:
    """A message key and its parameters (rendered in the user's language later)."""

    key: str
    params: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, key: str, **params: Any) -> Note:
        """Build a note from keyword parameters."""
        return cls(key, tuple(params.items()))

    def as_dict(self) -> dict[str, Any]:
        """JSON shape: key and params."""
        return {"key": self.key, "params": dict(self.params)}
