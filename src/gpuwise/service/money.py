"""Amounts typed with a currency, converted into a result's currency (said on stderr)."""

from __future__ import annotations

from typing import Any

from gpuwise import units


def money_in(ctx: Any, value: float | None, flag: str) -> float | None:
    """An amount typed with a currency (`¥12000`) in the command's result currency.

    `ctx` is a cost Context (its `currency` and `money`, i.e. the catalog's dated exchange rate
    or `--fx`). The conversion is said on stderr, so nothing is converted silently.
    """
    if not isinstance(value, units.Amount) or value.currency in (None, ctx.currency):
        return value
    import sys

    from gpuwise.i18n import t

    converted = float(ctx.money(float(value), value.currency))
    rate = ctx.fx.rate("CNY") / ctx.fx.rate("USD")
    sys.stderr.write(
        t(
            "units.currency_converted",
            flag=flag,
            value=f"{float(value):g} {value.currency}",
            converted=f"{converted:,.2f}",
            currency=ctx.currency,
            rate=f"{rate:g}",
        )
        + "\n"
    )
    return converted
