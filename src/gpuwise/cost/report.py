"""The `gpuwise cost` result as plain data (the --json shape), built from resolved specs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gpuwise.cost.compare import BREAK_EVEN_SEARCH_MONTHS, BreakEven, break_even, cumulative
from gpuwise.cost.model import CostOption, Note, PriceRef, busy_hours_per_month
from gpuwise.cost.own import own_cost
from gpuwise.cost.rent import RentUsage, rent_cost
from gpuwise.cost.resolve import Context, ResolvedOwn, ResolvedRent, fx_ref


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


def option_dict(
    opt: CostOption, prices: Sequence[PriceRef], notes: Sequence[Note], extra: dict[str, Any]
) -> dict[str, Any]:
    """One option: total, per month, the itemised bill, unpriced items, dated prices, notes."""
    items, total = money(opt.items)
    return {
        "label": opt.label,
        "kind": opt.kind,
        "currency": opt.currency,
        "total": total,
        "monthly": round(total / opt.months, 2) if opt.months else 0.0,
        "items": items,
        "unpriced": list(opt.unpriced),
        "details": {k: round(v, 3) for k, v in opt.details.items() if v == v},
        "prices": [p.as_dict() for p in prices if _used(p, opt.items)],
        "notes": [n.as_dict() for n in notes],
        "break_even": None,
        **extra,
    }


def cost_report(
    ctx: Context,
    own: ResolvedOwn | None,
    rents: Sequence[ResolvedRent],
    hours_per_day: float,
    months: int,
    usage: RentUsage,
    idle_hours_per_day: float | None = None,
) -> dict[str, Any]:
    """Every option's bill, break-even of each rental against owning, and the chart series."""
    busy = busy_hours_per_month(hours_per_day)
    idle = None if idle_hours_per_day is None else busy_hours_per_month(idle_hours_per_day)
    options: list[dict[str, Any]] = []
    series: dict[str, list[float]] = {}
    marks: dict[str, int] = {}
    horizon = months
    evens: dict[str, BreakEven] = {}
    if own is not None:
        for r in rents:
            be = break_even(own.spec, r.spec, hours_per_day, months, usage, idle_hours_per_day)
            evens[r.spec.label] = be
            if be.months is not None:
                marks[r.spec.label] = be.months
                horizon = max(horizon, be.months)
    horizon = min(horizon, max(months, BREAK_EVEN_SEARCH_MONTHS))
    if own is not None:
        o = own_cost(own.spec, busy, months, idle)
        if own.system is not None:
            from gpuwise.cost.system import as_system_cost

            o = as_system_cost(o, own.system_priced)
        options.append(
            option_dict(
                o,
                own.prices,
                own.notes,
                {
                    "gpu": own.spec.gpu_id,
                    "count": own.spec.count,
                    "system": own.system,
                    "systems": own.systems or None,
                    "owned": own.spec.owned,
                    "platform": own.platform,
                    "psu_w": None if own.psu_w is None else round(own.psu_w),
                    "host_parts": [{"id": i, "amount": round(a, 2)} for i, a in own.host_parts],
                },
            )
        )
        spec = own.spec
        series[spec.label] = cumulative(lambda m: own_cost(spec, busy, m, idle), horizon)
    for r in rents:
        c = rent_cost(r.spec, busy, months, usage)
        d = option_dict(
            c,
            r.prices,
            r.notes,
            {
                "provider": r.spec.provider,
                "instance": r.spec.instance,
                "gpu": r.spec.gpu_id,
                "gpu_count": r.spec.gpu_count,
                "billing": r.spec.billing,
            },
        )
        if r.spec.label in evens:
            d["break_even"] = evens[r.spec.label].as_dict()
        options.append(d)
        series[r.spec.label] = cumulative(
            lambda m, s=r.spec: rent_cost(s, busy, m, usage),  # type: ignore[misc]
            horizon,
        )
    cheapest = min(options, key=lambda d: d["total"])["label"] if options else None
    ref = fx_ref(ctx)
    return {
        "currency": ctx.currency,
        "today": ctx.today.isoformat(),
        "fx": {
            "cny_per_usd": ctx.fx.rate("CNY"),
            "user": "CNY" in ctx.fx.overridden,
            "rate": ref.as_dict() if ref else None,
        },
        "inputs": {
            "hours_per_day": hours_per_day,
            "busy_hours_per_month": round(busy, 2),
            "idle_hours_per_day": idle_hours_per_day,
            "months": months,
            "data_gb": usage.data_gb,
            "storage": usage.storage,
            "egress_gb_per_month": usage.egress_gb_per_month,
            "snapshot_gb": usage.snapshot_gb,
            "checkpoint_min": usage.checkpoint_min,
            "public_ip": usage.public_ip,
            "nat": usage.nat,
        },
        "options": options,
        "cheapest": cheapest,
        "chart": {
            "months": list(range(1, horizon + 1)),
            "series": {k: [round(v, 2) for v in vals] for k, vals in series.items()},
            "break_even_months": marks,
            "own": own.spec.label if own else None,
        },
    }
