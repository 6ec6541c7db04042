"""The electricity price a run is costed at (pure: catalog data in, a TariffPrice out).

`--tariff` takes a price per kWh in the display currency or a catalog preset id; without it the
residential preset of the display currency is used, as `gpuwise cost` does
(:data:`gpuwise.cost.resolve.DEFAULT_TARIFF`). Prices in another currency are converted with
the catalog's dated exchange rates (`--fx` overrides CNY per USD).
"""

from __future__ import annotations

import datetime as dt

from gpuwise.catalog.catalog import Catalog
from gpuwise.cost.resolve import DEFAULT_TARIFF, make_context
from gpuwise.errors import UserError
from gpuwise.monitor.summary import TariffPrice


def tariff_price(
    cat: Catalog, value: str | None, currency: str, cny_per_usd: float | None = None
) -> TariffPrice:
    """The price per kWh in `currency`: the user's number, or a preset converted."""
    ctx = make_context(cat, currency, dt.date.today(), cny_per_usd)
    if value is not None:
        try:
            number = float(value)
        except ValueError:
            number = None
        if number is not None:
            if number < 0:
                raise UserError("cost.negative", option="--tariff", value=value)
            return TariffPrice(number, ctx.currency, None, "user", None, number, ctx.currency)
    key = (value or DEFAULT_TARIFF[ctx.currency]).lower()
    presets = cat.extra("tariff")
    preset = next((p for p in presets if p.id == key), None)
    if preset is None:
        raise UserError("cost.unknown_tariff", value=key, choices=", ".join(p.id for p in presets))
    return TariffPrice(
        price_per_kwh=ctx.money(preset.price_per_kwh, preset.currency),
        currency=ctx.currency,
        tariff_id=preset.id,
        source=str(src.url) if (src := cat.sources.get(preset.source)) else preset.source,
        date=preset.date.isoformat() if preset.date else None,
        source_price=preset.price_per_kwh,
        source_currency=preset.currency,
    )
