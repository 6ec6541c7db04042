"""Numeric command-line options: every one is read by :mod:`gpuwise.units`.

`typer.Option(…, click_type=number("months"))` gives an option the units people type and the
range of its quantity; a bad value is one line (exit 2) naming the flag, the value and the range,
raised before the command runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from gpuwise import units
from gpuwise.service.money import money_in as money_in  # re-exported for the commands

if TYPE_CHECKING:
    _ParamType = click.ParamType[Any, Any]  # generic in click 8.2+
else:
    _ParamType = click.ParamType

_METAVARS = {
    "plain": "NUMBER",
    "count": "COUNT",
    "context": "TOKENS",
    "memory": "GB",
    "bandwidth": "GB/S",
    "money": "AMOUNT",
    "rate": "PRICE/H",
    "hours": "HOURS",
    "months": "MONTHS",
    "days": "DAYS",
    "minutes": "MINUTES",
    "percent": "PERCENT",
}


def flag_of(param: click.Parameter | None) -> str:
    """The long flag of an option (`--months`), or its name for arguments."""
    if param is None:
        return "value"
    opts = [o for o in getattr(param, "opts", []) if o.startswith("--")]
    return opts[0] if opts else str(param.name)


class NumberType(_ParamType):
    """A click type for one quantity of :data:`gpuwise.units.QUANTITIES`."""

    def __init__(self, quantity: str, whole: bool = False) -> None:
        self.quantity = quantity
        self.whole = whole
        self.name = _METAVARS[units.QUANTITIES[quantity].family].lower()

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return _METAVARS[units.QUANTITIES[self.quantity].family]

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        return units.read_value(value, self.quantity, flag_of(param), self.whole)


class NumberOrNameType(_ParamType):
    """A number of a quantity, or a preset name (`--tariff 0.6` or `--tariff cn-residential`).

    Numbers come back as plain decimal text, so the code that looks presets up is unchanged.
    """

    name = "number|name"

    def __init__(self, quantity: str) -> None:
        self.quantity = quantity

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if value is None or not units.looks_numeric(str(value)):
            return value
        return repr(float(units.read_value(str(value), self.quantity, flag_of(param))))


def number(quantity: str, whole: bool = False) -> NumberType:
    """The click type for an option holding a `quantity` (see gpuwise.units.QUANTITIES)."""
    return NumberType(quantity, whole)


def number_or_name(quantity: str) -> NumberOrNameType:
    """The click type for an option holding a number or a preset name."""
    return NumberOrNameType(quantity)
