"""`cost`: own N cards or rent cloud offers — itemised bills, break-even, chart series."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from gpuwise.errors import UserError

if TYPE_CHECKING:
    from gpuwise.cost.rent import RentUsage
    from gpuwise.cost.report_model import CostReport
    from gpuwise.cost.resolve import OwnOptions, RentOptions

STORAGE_KINDS = ("block", "object", "both")


def check_cost_inputs(
    hours: float,
    months: int,
    idle: float | None,
    sizes: dict[str, float],
) -> None:
    """Bad numbers end here with one clear line; `sizes` maps each flag to its value."""
    if not 0 <= hours <= 24:
        raise UserError("cost.bad_hours", value=hours)
    if months < 1:
        raise UserError("cost.bad_months", value=months)
    if idle is not None and not 0 <= idle <= 24 - hours:
        raise UserError("cost.bad_idle_hours", value=idle, max=24 - hours)
    for option, value in sizes.items():
        if value < 0:
            raise UserError("cost.negative", option=option, value=value)


def cost_data(
    own: str | None,
    count: int,
    vs: list[str],
    hours_per_day: float,
    months: int,
    idle_hours: float | None,
    usage: RentUsage,
    own_opts: OwnOptions,
    rent_opts: RentOptions,
    currency: str | None,
    fx: float | None,
) -> CostReport:
    """The `gpuwise cost --json` report (without the `plot` part: drawing is the caller's)."""
    import datetime as dt

    from gpuwise.catalog import load_catalog
    from gpuwise.cost.report import cheapest_billing, cost_report
    from gpuwise.cost.resolve import make_context
    from gpuwise.cost.system import resolve_purchase
    from gpuwise.service.offers import default_currency

    if not own and not vs:
        raise UserError("cost.nothing_to_compare")
    if own_opts.owned and not own:
        raise UserError("cost.owned_without_own")
    cat = load_catalog()
    ctx = make_context(cat, default_currency(currency), dt.date.today(), fx)
    own_opts = _in_currency(ctx, own_opts)
    owned = resolve_purchase(cat, ctx, own, count, own_opts) if own else None
    rents = [cheapest_billing(cat, ctx, v, rent_opts, hours_per_day, months, usage) for v in vs]
    return cost_report(ctx, owned, rents, hours_per_day, months, usage, idle_hours)


def _in_currency(ctx: Any, opts: OwnOptions) -> OwnOptions:
    """Prices typed with another currency's symbol (`--card-price ¥12000`) converted."""
    from gpuwise.service.money import money_in

    card = money_in(ctx, opts.card_price, "--card-price")
    host = money_in(ctx, opts.host_price, "--host-price")
    return dataclasses.replace(opts, card_price=card, host_price=host)
