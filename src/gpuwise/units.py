"""Numbers people type, and the range gpuwise accepts for each kind of number.

Every number that enters gpuwise from a person — a command-line flag, a scenario field, a
catalog override — goes through :func:`read`: it accepts the units people write (`24GB`, `80G`,
`32k`, `2e7`, `20M`, `1.5B`, `2000万`, `¥3000`, `3000元`, `$2.5/h`, `30%`), and rejects NaN,
infinities, negative values where they mean nothing and values outside the range in
:data:`QUANTITIES` (gpuwise.quantities), with one line that names the flag or field, the value
and the range. A suffix of another kind (`24gb` where a token count is expected, `5M` months) is
an error with a hint, never a guess. Decimal marks and digit grouping (`1,500.00`, `1 500,00`,
`1,98` from a semicolon file) are read per the source's decimal mark (gpuwise.separators); a
number that could be read two ways is refused with both readings.

Pure and light (no pydantic, no click): the CLI adapter is `gpuwise.cli.numbers`, the pydantic
one :func:`field`.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpuwise.errors import UserError
from gpuwise.quantities import QUANTITIES as QUANTITIES  # re-exported: the policy table
from gpuwise.quantities import Family as Family
from gpuwise.quantities import Quantity as Quantity
from gpuwise.quantities import catalog_quantity as catalog_quantity
from gpuwise.separators import DecimalMark, read_marks, ungroup_spaces

# ---------------------------------------------------------------- suffixes

_DECIMAL = {"k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12, "万": 1e4, "亿": 1e8, "w": 1e4}
_BINARY = {"k": 1024.0, "m": 1024.0**2, "万": 1e4}
_MEMORY = {
    "gb": 1.0, "g": 1.0, "gib": 1.073741824, "mb": 1e-3, "mib": 1.048576e-3,
    "tb": 1e3, "t": 1e3, "tib": 1099.511627776,
}  # fmt: skip
_BANDWIDTH = {"gb/s": 1.0, "gbps": 1.0, "gbs": 1.0, "g": 1.0, "gb": 1.0, "tb/s": 1e3}
_HOURS = {"h": 1.0, "hr": 1.0, "hrs": 1.0, "hour": 1.0, "hours": 1.0, "小时": 1.0}
_MONTHS = {"mo": 1.0, "mon": 1.0, "month": 1.0, "months": 1.0, "个月": 1.0, "月": 1.0,
           "y": 12.0, "yr": 12.0, "yrs": 12.0, "year": 12.0, "years": 12.0, "年": 12.0}  # fmt: skip
_DAYS = {"d": 1.0, "day": 1.0, "days": 1.0, "天": 1.0, "w": 7.0, "week": 7.0, "weeks": 7.0,
         "周": 7.0}  # fmt: skip
_MINUTES = {"min": 1.0, "mins": 1.0, "minute": 1.0, "minutes": 1.0, "分钟": 1.0,
            "h": 60.0, "hr": 60.0, "hour": 60.0, "hours": 60.0}  # fmt: skip
_PER_HOUR = ("/h", "/hr", "/hour", "/小时", "perhour", "/gpu-h", "/gpuh", "/gpu-hour")
_PER_PERIOD = {
    **{tail: "hour" for tail in (*_PER_HOUR, "/时", "/hours", "/hrs")},
    **{tail: "month" for tail in ("/month", "/mo", "/mon", "/月", "/个月", "permonth")},
    **{tail: "year" for tail in ("/year", "/yr", "/y", "/年", "peryear")},
}
"""A price's period, written after it (`8 USD/h`, `1100元/月`)."""
_CURRENCY_WORDS = {
    "¥": "CNY", "元": "CNY", "块": "CNY", "rmb": "CNY", "cny": "CNY", "人民币": "CNY",
    "$": "USD", "us$": "USD", "usd": "USD", "美元": "USD", "€": "EUR", "eur": "EUR", "欧元": "EUR",
}  # fmt: skip
_MONEY_SCALE = {"k": 1e3, "w": 1e4, "万": 1e4, "m": 1e6, "亿": 1e8, "b": 1e9}

_SUFFIXES: dict[Family, dict[str, float]] = {
    "plain": {},
    "count": _DECIMAL,
    "context": _BINARY,
    "memory": _MEMORY,
    "bandwidth": _BANDWIDTH,
    "money": _MONEY_SCALE,
    "rate": _MONEY_SCALE,
    "price": _MONEY_SCALE,
    "hours": _HOURS,
    "months": _MONTHS,
    "days": _DAYS,
    "minutes": _MINUTES,
    "percent": {"%": 1.0},
}
"""Suffix → factor, per family (matched after lower-casing and removing spaces)."""

_NUMBER = r"^([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)(.*)$"
_SPECIAL = r"^[+-]?(nan|inf|infinity)$"


@dataclass(frozen=True)
class Parsed:
    """A number read from text, in the quantity's base unit, and a currency if one was typed."""

    value: float
    currency: str | None = None
    per: str | None = None
    """hour, month or year when the text said so (`$8/h`, `1100元/月`)."""


class Amount(float):
    """A float that remembers the currency typed with it (`¥3000` → 3000.0, currency CNY)."""

    currency: str | None = None

    def __new__(cls, value: float, currency: str | None = None) -> Amount:
        obj = super().__new__(cls, value)
        obj.currency = currency
        return obj


def _fail(key: str, flag: str, text: str, q: Quantity | None = None, **extra: Any) -> UserError:
    params: dict[str, Any] = {"flag": flag, "value": text, **extra}
    if q is not None:
        params.setdefault("range", describe_range(q))
    return UserError(key, **params)


def describe_range(q: Quantity) -> str:
    """ "between 1 and 600" / "more than 0 and at most 600", in the user's language."""
    from gpuwise.i18n import t

    key = "units.range_open" if q.lo_open else "units.range_closed"
    return t(key, lo=_fmt(q.lo), hi=_fmt(q.hi))


def _fmt(x: float) -> str:
    if x == int(x) and abs(x) < 1e7:
        return f"{int(x):,}".replace(",", " ") if abs(x) >= 10_000 else str(int(x))
    if x == int(x):
        return f"{x:.0e}".replace("e+0", "e").replace("e+", "e")
    return f"{x:g}"


def _strip_currency(s: str) -> tuple[str, str | None]:
    """Remove currency words/symbols at either end; return the rest and the currency."""
    currency: str | None = None
    for word in sorted(_CURRENCY_WORDS, key=len, reverse=True):
        if s.startswith(word):
            s, currency = s[len(word) :], _CURRENCY_WORDS[word]
            break
    for word in sorted(_CURRENCY_WORDS, key=len, reverse=True):
        if s.endswith(word):
            found = _CURRENCY_WORDS[word]
            if currency and currency != found:
                return s, "?"
            s, currency = s[: -len(word)], found
            break
    return s, currency


def _looks_like(suffix: str) -> str | None:
    """Which kind of number a suffix belongs to, for the hint (None: unknown)."""
    if suffix in _MEMORY or suffix in ("kb", "pb"):
        return "memory"
    if suffix in ("k", "m", "b", "t", "万", "亿"):
        return "count"
    if suffix in _HOURS or suffix in _MONTHS or suffix in _DAYS or suffix in _MINUTES:
        return "time"
    if suffix.startswith("/") or suffix == "%":
        return "rate"
    return None


def parse(text: str | float | int, quantity: str, flag: str, decimal: DecimalMark = ".") -> Parsed:
    """Read `text` as a number of `quantity` (no range check; see :func:`read`). `decimal` is
    the decimal mark of where the text came from (gpuwise.separators): "." for flags."""
    q = QUANTITIES[quantity]
    if isinstance(text, bool):
        raise _fail("units.not_a_number", flag, str(text), q, hint=_hint(q, None))
    if isinstance(text, int | float):
        return Parsed(float(text))
    raw = str(text)
    grouped = ungroup_spaces(unicodedata.normalize("NFKC", raw).strip().lower().replace("_", ""))
    if grouped is None:
        raise _fail("units.not_a_number", flag, raw, q, hint=_hint(q, None))
    s, spaced = grouped[0].replace(" ", ""), grouped[1]
    if re.match(_SPECIAL, s):
        raise _fail("units.not_finite", flag, raw, q)
    s, currency, per = _strip_money(s, raw, flag, q)
    s = _marks(s, decimal, spaced, raw, flag, q)
    m = re.match(_NUMBER, s)
    if not m:
        raise _fail("units.not_a_number", flag, raw, q, hint=_hint(q, None))
    number, suffix = m.group(1), m.group(2)
    factor = _SUFFIXES[q.family].get(suffix) if suffix else 1.0
    if factor is None:
        raise _fail("units.bad_unit", flag, raw, q, hint=_hint(q, _looks_like(suffix)))
    value = float(number) * factor
    if not math.isfinite(value):
        raise _fail("units.not_finite", flag, raw, q)
    return Parsed(value, currency, per)


def _strip_money(s: str, raw: str, flag: str, q: Quantity) -> tuple[str, str | None, str | None]:
    """The period (`/h`, `/月`) and then the currency marks of a money-like number; elsewhere a
    currency mark is an error with a hint."""
    per: str | None = None
    if q.family == "rate":
        s, per = _strip_per(s, raw, flag, q, _PER_HOUR)
    elif q.family == "price":
        s, per = _strip_per(s, raw, flag, q, tuple(_PER_PERIOD))
    currency: str | None = None
    if q.family in ("money", "rate", "price"):
        s, currency = _strip_currency(s)
        if currency == "?":
            raise _fail("units.two_currencies", flag, raw, q)
    elif s[:1] in ("¥", "$", "€") or s.endswith(("元", "rmb", "cny", "usd", "eur")):
        raise _fail("units.bad_unit", flag, raw, q, hint=_hint(q, "money"))
    return s, currency, per


def _marks(s: str, decimal: DecimalMark, spaced: bool, raw: str, flag: str, q: Quantity) -> str:
    """Decimal mark and grouping (gpuwise.separators); an ambiguous number lists its readings."""
    reading = read_marks(s, decimal, spaced)
    if reading.text is not None:
        return reading.text
    if reading.problem == "decimal_comma":
        raise _fail("units.not_a_number", flag, raw, q, hint=_hint(q, "decimal_comma"))
    if reading.problem == "ambiguous":
        shown = " / ".join(f"{r:g}" for r in reading.readings)
        raise _fail("units.ambiguous_marks", flag, raw, q, readings=shown)
    raise _fail("units.not_a_number", flag, raw, q, hint=_hint(q, None))


def _strip_per(
    s: str, raw: str, flag: str, q: Quantity, tails: tuple[str, ...]
) -> tuple[str, str | None]:
    for tail in sorted(tails, key=len, reverse=True):
        if s.endswith(tail):
            return s[: -len(tail)], _PER_PERIOD.get(tail, "hour")
    if "/" in s:
        raise _fail("units.bad_unit", flag, raw, q, hint=_hint(q, "per_hour"))
    return s, None


def _hint(q: Quantity, looks: str | None) -> str:
    """A short "did you mean" for a suffix that belongs to another kind of number."""
    from gpuwise.i18n import t

    if q.family == "months" and looks == "count":
        return t("units.hint_months_m")
    takes = t(f"units.takes_{q.family}")
    if looks in ("memory", "count", "time", "money", "rate"):
        return t("units.hint_looks", looks=t(f"units.looks_{looks}"), takes=takes)
    if looks in ("decimal_comma", "per_hour"):
        return t(f"units.hint_{looks}", takes=takes)
    return t("units.hint_takes", takes=takes)


def check(value: float, quantity: str, flag: str, text: str | None = None) -> float:
    """`value` if it is finite, whole where it must be, and within the quantity's range."""
    q = QUANTITIES[quantity]
    shown = text if text is not None else _fmt(value) if math.isfinite(value) else str(value)
    if not math.isfinite(value):
        raise _fail("units.not_finite", flag, shown, q)
    low_ok = value > q.lo if q.lo_open else value >= q.lo
    if not low_ok or value > q.hi:
        raise _fail("units.out_of_range", flag, shown, q)
    if q.integer and value != int(value):
        raise _fail("units.not_whole", flag, shown, q)
    return value


def read(text: str | float | int, quantity: str, flag: str, decimal: DecimalMark = ".") -> Parsed:
    """Parse and range-check one number; every problem is one UserError line (exit 2)."""
    parsed = parse(text, quantity, flag, decimal)
    shown = text if isinstance(text, str) else None
    check(parsed.value, quantity, flag, shown)
    if QUANTITIES[quantity].integer:
        return Parsed(float(round(parsed.value)), parsed.currency, parsed.per)
    return parsed


def read_value(
    text: str | float | int, quantity: str, flag: str, whole: bool = False
) -> float | int:
    """:func:`read` as a plain number (an int for whole-number quantities or `whole`)."""
    p = read(text, quantity, flag)
    if whole and p.value != int(p.value):
        shown = text if isinstance(text, str) else _fmt(p.value)
        raise _fail("units.not_whole", flag, shown, QUANTITIES[quantity])
    if QUANTITIES[quantity].integer or whole:
        return int(p.value)
    return Amount(p.value, p.currency) if p.currency else p.value


def looks_numeric(text: str) -> bool:
    """True when text is meant as a number (for options that take a number or a preset name)."""
    s = unicodedata.normalize("NFKC", text).strip().lower()
    starts_like_number = re.match(r"^[+\-.\d¥$€]", s) or s.startswith(("us$", "rmb"))
    return bool(starts_like_number or re.match(_SPECIAL, s))


def field(quantity: str) -> Callable[[Any, Any], Any]:
    """A pydantic `BeforeValidator` function: units accepted, range enforced, field named.

    Used as `Annotated[float, BeforeValidator(units.field("months"))]`; a problem is raised as a
    ValueError wrapping the UserError, which `advise.scenario` turns back into one line.
    """

    def validate(value: Any, info: Any) -> Any:
        if value is None:
            return None
        if not isinstance(value, str | int | float):
            return value  # let pydantic report the wrong type
        name = getattr(info, "field_name", None) or quantity
        try:
            return read_value(value, quantity, name)
        except UserError as exc:
            raise UnitValueError(exc) from exc

    return validate


def currency_from_amount(data: Any) -> Any:
    """For a `{amount, currency}` mapping: a symbol typed with the amount (`¥3000`) sets the
    currency; a symbol that contradicts `currency:` is an error (never a silent pick)."""
    if not isinstance(data, dict) or not isinstance(data.get("amount"), str):
        return data
    try:
        typed = parse(data["amount"], "budget", "amount").currency
    except UserError:
        return data  # the amount validator reports it, naming the field
    given = data.get("currency")
    if typed and given and str(given).upper() != typed:
        error = UserError(
            "units.currency_conflict", flag="amount", value=data["amount"], typed=typed, given=given
        )
        raise UnitValueError(error)
    return {**data, "currency": typed} if typed else data


class UnitValueError(ValueError):
    """A UserError carried through pydantic (which only lets ValueError out of validators)."""

    def __init__(self, error: UserError) -> None:
        super().__init__(error.render())
        self.error = error
