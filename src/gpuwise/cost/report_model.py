"""The `gpuwise cost --json` document as types: what the core hands the renderers, the chart,
the web page and the MCP tool, and what docs/schemas/cost.json publishes.

Frozen pydantic models (gpuwise.documents): `model_dump(mode="json")` is the `--json` output.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import Field

from gpuwise.cost.compare import BreakEven
from gpuwise.cost.model import Note, PriceRef
from gpuwise.documents import Frozen, NoteEntry


class PriceEntry(Frozen):
    """A dated price a bill rests on (`date` is the published date; None: date unknown)."""

    label: str
    amount: float
    currency: str
    per: str
    date: dt.date | None
    published: dt.date | None
    retrieved: dt.date | None
    source: str
    stale: bool
    undated: bool
    origin: str = Field(description="catalog | feed | user")

    @classmethod
    def of(cls, ref: PriceRef) -> PriceEntry:
        """The entry of a resolved price reference."""
        return cls(
            label=ref.label,
            amount=ref.amount,
            currency=ref.currency,
            per=ref.per,
            date=ref.date,
            published=ref.date,
            retrieved=ref.retrieved,
            source=ref.source,
            stale=ref.stale,
            undated=ref.undated,
            origin=ref.origin,
        )


def note_entry(note: Note) -> NoteEntry:
    """A cost note as the document states it."""
    return NoteEntry(key=note.key, params=dict(note.params))


class BreakEvenEntry(Frozen):
    """Where owning and a rental cost the same (see cost.compare.BreakEven)."""

    hours_per_day: float | None
    months: int | None
    cheaper_always: str | None = Field(None, description="own | rent, when one always wins")

    @classmethod
    def of(cls, be: BreakEven) -> BreakEvenEntry:
        return cls(
            hours_per_day=be.hours_per_day, months=be.months, cheaper_always=be.cheaper_always
        )


class HostPartEntry(Frozen):
    """A priced part of a bought host."""

    id: str
    amount: float


class Bill(Frozen):
    """One option's bill: total, per month, the items, what is unpriced, prices and notes."""

    label: str
    currency: str
    total: float
    monthly: float
    items: dict[str, float]
    unpriced: list[str]
    details: dict[str, float]
    prices: list[PriceEntry]
    notes: list[NoteEntry]
    break_even: BreakEvenEntry | None = Field(
        None, description="against owning, for a rental when owning is compared"
    )


class OwnBill(Bill):
    """Owning cards in a host (or whole systems)."""

    kind: Literal["own"] = "own"
    gpu: str
    count: int
    system: str | None
    systems: int | None
    owned: bool
    platform: str
    psu_w: int | None
    host_parts: list[HostPartEntry]


class RentBill(Bill):
    """Renting a cloud offer."""

    kind: Literal["rent"] = "rent"
    provider: str
    instance: str
    gpu: str
    gpu_count: int
    billing: str


AnyBill = Annotated[OwnBill | RentBill, Field(discriminator="kind")]


class FxInfo(Frozen):
    """The exchange rate used and where it comes from."""

    cny_per_usd: float
    user: bool = Field(description="the rate is the user's --fx")
    rate: PriceEntry | None


class CostInputs(Frozen):
    """The use the bills are for."""

    hours_per_day: float
    busy_hours_per_month: float
    idle_hours_per_day: float | None
    months: int
    data_gb: float
    storage: str
    egress_gb_per_month: float
    snapshot_gb: float
    checkpoint_min: float
    public_ip: bool
    nat: bool


class Chart(Frozen):
    """Cumulative cost per month of each option, and the months owning catches up."""

    months: list[int]
    series: dict[str, list[float]]
    break_even_months: dict[str, int]
    own: str | None = Field(description="the label of the owning option, if any")


class PlotInfo(Frozen):
    """The PNG written by --plot and what it says about itself."""

    path: str
    notes: list[str]


class CostReport(Frozen):
    """`gpuwise cost --json`."""

    currency: str
    today: dt.date
    fx: FxInfo
    inputs: CostInputs
    options: list[AnyBill]
    cheapest: str | None
    chart: Chart
    plot: PlotInfo | None = Field(None, description="set when --plot wrote a chart")


class TimelineInputs(Frozen):
    """The horizon and daily use a plan's cost chart is drawn for."""

    months: float
    hours_per_day: float


class TimelineOption(Frozen):
    """What a chart legend needs to name an option of a plan (the naming fields of a bill)."""

    label: str
    kind: Literal["own", "rent"]
    gpu: str
    count: int
    owned: bool
    system: str | None = None
    systems: int | None = None
    platform: str
    provider: str | None
    instance: str | None
    billing: str | None
    total: float


class Timeline(Frozen):
    """A plan's best own and best rent options over time (the web page's chart)."""

    currency: str
    inputs: TimelineInputs
    options: list[TimelineOption]
    chart: Chart
