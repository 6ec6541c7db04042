"""The `gpuwise cost` result (cost.report_model.CostReport, the --json shape) built from
resolved specs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from gpuwise.catalog.catalog import Catalog
from gpuwise.cost.compare import BREAK_EVEN_SEARCH_MONTHS, BreakEven, break_even, cumulative
from gpuwise.cost.model import CostOption, Note, PriceRef, busy_hours_per_month
from gpuwise.cost.own import own_cost
from gpuwise.cost.rent import RentUsage, rent_cost
from gpuwise.cost.report_model import (
    BreakEvenEntry,
    Chart,
    CostInputs,
    CostReport,
    FxInfo,
    HostPartEntry,
    OwnBill,
    PriceEntry,
    RentBill,
    note_entry,
)
from gpuwise.cost.resolve import (
    Context,
    RentOptions,
    ResolvedOwn,
    ResolvedRent,
    find_offer,
    find_provider,
    fx_ref,
    parse_vs,
    resolve_rent,
)


def money(items: dict[str, float]) -> tuple[dict[str, float], float]:
    """Items rounded to cents and their total, so that the shown items add up exactly."""
    cents = {k: round(v * 100) for k, v in items.items()}
    return {k: c / 100 for k, c in cents.items()}, sum(cents.values()) / 100


HIDDEN_ITEM = {
    "block_storage_per_gb_month": "block_storage",
    "object_storage_per_gb_month": "object_storage",
    "egress_per_gb": "egress",
    "snapshot_per_gb_month": "snapshots",
    "public_ip_per_hour": "public_ip",
    "nat_gateway_per_hour": "nat_gateway",
    "nat_gateway_per_gb": "nat_traffic",
}
"""Which bill item each hidden-cost rate feeds (a rate is shown only when its item is billed)."""


def _used(ref: PriceRef, items: dict[str, float]) -> bool:
    field = ref.label.removeprefix("hidden:")
    return field == ref.label or HIDDEN_ITEM.get(field) in items


def _bill_fields(
    opt: CostOption, prices: Sequence[PriceRef], notes: Sequence[Note]
) -> dict[str, Any]:
    """The fields every bill has: total, per month, the items, unpriced, dated prices, notes
    (keyword arguments of OwnBill and RentBill)."""
    items, total = money(opt.items)
    return {
        "label": opt.label,
        "currency": opt.currency,
        "total": total,
        "monthly": round(total / opt.months, 2) if opt.months else 0.0,
        "items": items,
        "unpriced": list(opt.unpriced),
        "details": {k: round(v, 3) for k, v in opt.details.items() if v == v},
        "prices": [PriceEntry.of(p) for p in prices if _used(p, opt.items)],
        "notes": [note_entry(n) for n in notes],
    }


def cheapest_billing(
    cat: Catalog,
    ctx: Context,
    vs: str,
    opts: RentOptions,
    hours_per_day: float,
    months: int,
    usage: RentUsage,
) -> ResolvedRent:
    """`provider:instance` with no billing named: the cheapest way to buy these hours among the
    offer's on-demand and committed modes (spot only when asked), with a note naming the others.
    A monthly or yearly commitment is chosen only where the use fills it."""
    provider, instance, billing = parse_vs(vs)
    if billing is not None:
        return resolve_rent(cat, ctx, vs, opts)
    offer = find_offer(cat, find_provider(cat, provider), instance)
    modes = [p.billing for p in offer.prices if p.billing != "spot"]
    if len(modes) < 2:
        return resolve_rent(cat, ctx, vs, opts)
    busy = busy_hours_per_month(hours_per_day)
    priced = [
        (rent_cost(r.spec, busy, months, usage).total, r)
        for r in (resolve_rent(cat, ctx, f"{provider}:{instance}:{m}", opts) for m in modes)
    ]
    priced.sort(key=lambda tr: tr[0])
    best = priced[0][1]
    others = tuple((r.spec.billing, round(v, 2)) for v, r in priced[1:])
    note = Note.of("cost.note_billing_chosen", billing=best.spec.billing, others=others)
    return replace(best, notes=(*best.notes, note))


@dataclass(frozen=True)
class _Use:
    """The use every option is priced for (busy and idle hours a month, the horizon)."""

    hours_per_day: float
    months: int
    usage: RentUsage
    idle_hours_per_day: float | None

    @property
    def busy(self) -> float:
        return busy_hours_per_month(self.hours_per_day)

    @property
    def idle(self) -> float | None:
        h = self.idle_hours_per_day
        return None if h is None else busy_hours_per_month(h)


def _own_bill(own: ResolvedOwn, use: _Use) -> OwnBill:
    """The bill of owning (a system bought whole shows as one)."""
    o = own_cost(own.spec, use.busy, use.months, use.idle)
    if own.system is not None:
        from gpuwise.cost.system import as_system_cost

        o = as_system_cost(o, own.system_priced)
    return OwnBill(
        **_bill_fields(o, own.prices, own.notes),
        gpu=own.spec.gpu_id,
        count=own.spec.count,
        system=own.system,
        systems=own.systems or None,
        owned=own.spec.owned,
        platform=own.platform,
        psu_w=None if own.psu_w is None else round(own.psu_w),
        host_parts=[HostPartEntry(id=i, amount=round(a, 2)) for i, a in own.host_parts],
    )


def _rent_bill(r: ResolvedRent, use: _Use, be: BreakEven | None) -> RentBill:
    """The bill of one rental, with its break-even against owning when owning is compared."""
    c = rent_cost(r.spec, use.busy, use.months, use.usage)
    return RentBill(
        **_bill_fields(c, r.prices, r.notes),
        break_even=None if be is None else BreakEvenEntry.of(be),
        provider=r.spec.provider,
        instance=r.spec.instance,
        gpu=r.spec.gpu_id,
        gpu_count=r.spec.gpu_count,
        billing=r.spec.billing,
    )


def _break_evens(
    own: ResolvedOwn | None, rents: Sequence[ResolvedRent], use: _Use
) -> tuple[dict[str, BreakEven], int]:
    """Each rental's break-even against owning, and the chart's horizon: the project's months,
    stretched to the latest break-even month within the search."""
    evens: dict[str, BreakEven] = {}
    horizon = use.months
    if own is not None:
        for r in rents:
            be = break_even(
                own.spec, r.spec, use.hours_per_day, use.months, use.usage, use.idle_hours_per_day
            )
            evens[r.spec.label] = be
            if be.months is not None:
                horizon = max(horizon, be.months)
    return evens, min(horizon, max(use.months, BREAK_EVEN_SEARCH_MONTHS))


def _chart(
    own: ResolvedOwn | None,
    rents: Sequence[ResolvedRent],
    use: _Use,
    evens: dict[str, BreakEven],
    horizon: int,
) -> Chart:
    """Cumulative cost per month of every option up to `horizon`."""
    series: dict[str, list[float]] = {}
    if own is not None:
        spec = own.spec
        series[spec.label] = cumulative(lambda m: own_cost(spec, use.busy, m, use.idle), horizon)
    for r in rents:
        series[r.spec.label] = cumulative(
            lambda m, s=r.spec: rent_cost(s, use.busy, m, use.usage),  # type: ignore[misc]
            horizon,
        )
    return Chart(
        months=list(range(1, horizon + 1)),
        series={k: [round(v, 2) for v in vals] for k, vals in series.items()},
        break_even_months={k: be.months for k, be in evens.items() if be.months is not None},
        own=own.spec.label if own else None,
    )


def _inputs(use: _Use) -> CostInputs:
    u = use.usage
    return CostInputs(
        hours_per_day=use.hours_per_day,
        busy_hours_per_month=round(use.busy, 2),
        idle_hours_per_day=use.idle_hours_per_day,
        months=use.months,
        data_gb=u.data_gb,
        storage=u.storage,
        egress_gb_per_month=u.egress_gb_per_month,
        snapshot_gb=u.snapshot_gb,
        checkpoint_min=u.checkpoint_min,
        public_ip=u.public_ip,
        nat=u.nat,
    )


def cost_report(
    ctx: Context,
    own: ResolvedOwn | None,
    rents: Sequence[ResolvedRent],
    hours_per_day: float,
    months: int,
    usage: RentUsage,
    idle_hours_per_day: float | None = None,
) -> CostReport:
    """Every option's bill, break-even of each rental against owning, and the chart series."""
    use = _Use(hours_per_day, months, usage, idle_hours_per_day)
    evens, horizon = _break_evens(own, rents, use)
    options: list[OwnBill | RentBill] = [_own_bill(own, use)] if own is not None else []
    options += [_rent_bill(r, use, evens.get(r.spec.label)) for r in rents]
    ref = fx_ref(ctx)
    fx = FxInfo(
        cny_per_usd=ctx.fx.rate("CNY"),
        user="CNY" in ctx.fx.overridden,
        rate=PriceEntry.of(ref) if ref else None,
    )
    return CostReport(
        currency=ctx.currency,
        today=ctx.today,
        fx=fx,
        inputs=_inputs(use),
        options=options,
        cheapest=min(options, key=lambda b: b.total).label if options else None,
        chart=_chart(own, rents, use, evens, horizon),
    )
