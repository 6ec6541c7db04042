"""Option checks and helpers shared by `watch`, `record`, `runs` and `exporter`."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from rich.console import Console

from gpuwise.errors import UserError

if TYPE_CHECKING:
    from gpuwise.monitor.store import RunStore
    from gpuwise.monitor.summary import TariffPrice


def check_interval(value: float, flag: str = "--interval") -> float:
    """A sampling interval must be a positive number of seconds (at most a day)."""
    if not 0 < value <= 86400:
        raise UserError("monitor.bad_interval", flag=flag, value=value)
    return value


def check_count(value: int | None) -> int | None:
    """`--count` (number of samples) must be at least 1 when given."""
    if value is not None and value < 1:
        raise UserError("monitor.bad_count", value=value)
    return value


def err_console() -> Console:
    """gpuwise's console on stderr (`record` leaves stdout to the recorded command)."""
    from gpuwise.render import out

    console = out.console()
    console.file = sys.stderr
    return console


def open_store(create: bool) -> RunStore:
    """The user's run store (created on first write; UserError when it cannot be)."""
    from gpuwise.monitor.paths import store_path
    from gpuwise.monitor.store import RunStore

    return RunStore(store_path(), create=create)


def tariff_for(tariff: str | None, currency: str | None, fx: float | None) -> TariffPrice:
    """The electricity price to cost energy at (catalog presets; default by display currency)."""
    from gpuwise.catalog import load_catalog
    from gpuwise.i18n import get_lang
    from gpuwise.monitor.costing import tariff_price

    # the rule of `gpuwise offers`/`cost` (cmd_offers.default_currency): CNY in Chinese, else USD
    chosen = currency or ("CNY" if get_lang() == "zh" else "USD")
    return tariff_price(load_catalog(), tariff, chosen, fx)
