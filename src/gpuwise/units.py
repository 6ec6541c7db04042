"""Numbers people type, and the range gpuwise accepts for each kind of number.

Every number that enters gpuwise from a person — a command-line flag, a scenario field, a
catalog override — goes through :func:`read`: it accepts the units people write (`24GB`, `80G`,
`32k`, `2e7`, `20M`, `1.5B`, `2000万`, `¥3000`, `3000元`, `$2.5/h`, `30%`), and rejects NaN,
infinities, negative values where they mean nothing and values outside the range in
:data:`QUANTITIES`, with one line that names the flag or field, the value and the range. A
suffix of another kind (`24gb` where a token count is expected, `5M` months) is an error with a
hint, never a guess.

Pure and light (no pydantic, no click): the CLI adapter is `gpuwise.cli.numbers`, the pydantic
one :func:`field`.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from gpuwise.errors import UserError

Family = Literal[
    "plain",
    "count",
    "context",
    "memory",
    "bandwidth",
    "money",
    "rate",
    "hours",
    "months",
    "days",
    "minutes",
    "percent",
]


@dataclass(frozen=True)
class Quantity:
    """One kind of number: the units it may be written in and the range that makes sense.

    `lo_open`: the lower bound itself is not allowed (must be more than `lo`). `why` is the
    product reason for the bounds, shown nowhere but kept beside them so a reviewer can judge.
    """

    family: Family
    lo: float
    hi: float
    why: str
    lo_open: bool = False
    integer: bool = False


QUANTITIES: dict[str, Quantity] = {
    # ---- workload sizes
    "batch": Quantity(
        "count",
        1,
        65_536,
        "sequences per step; no recipe uses more than a few thousand, 65 536 leaves room",
        integer=True,
    ),
    "samples": Quantity(
        "count", 1, 1e12, "training examples; 1e12 is beyond any public dataset", integer=True
    ),
    "context": Quantity(
        "context",
        1,
        10_485_760,
        "tokens in one sequence; the longest published context windows are 10M (Llama 4 Scout)",
        integer=True,
    ),
    "ubatch": Quantity(
        "context",
        1,
        1_048_576,
        "tokens one prefill step processes (llama.cpp -ub, vLLM max-num-batched-tokens); "
        "engines default to 512-16 384, 1M leaves room",
        integer=True,
    ),
    "tokens_part": Quantity(
        "context",
        0,
        10_485_760,
        "prompt or generated tokens of one request: 0 allowed, never more than the longest context",
        integer=True,
    ),
    "dataset_tokens": Quantity(
        "count",
        0,
        1e15,
        "tokens in a training set; the largest public "
        "pre-training sets hold ~3.6e13, 1e15 leaves room",
        lo_open=True,
    ),
    "lora_rank": Quantity(
        "count",
        1,
        65_536,
        "LoRA rank; ranks above the hidden size (≤ 65k for every catalog model) mean nothing",
        integer=True,
    ),
    "epochs": Quantity(
        "plain",
        0,
        1_000,
        "passes over the data; fine-tuning uses 1–10, 1 000 is already absurd",
        lo_open=True,
    ),
    "runs_per_month": Quantity(
        "plain", 0, 10_000, "jobs a month; 10 000 is one every ~4 minutes", lo_open=True
    ),
    "concurrency": Quantity(
        "count",
        1,
        1_000_000,
        "simultaneous requests served; a million is beyond any one deployment gpuwise sizes",
        integer=True,
    ),
    "target_tps": Quantity(
        "count", 0, 1e8, "tokens per second wanted from the whole deployment", lo_open=True
    ),
    "gpus": Quantity(
        "count", 1, 100_000, "GPUs in one job; the largest clusters have ~100k", integer=True
    ),
    "card_count": Quantity(
        "count",
        1,
        1_024,
        "cards owned; per-host limits are checked against the catalog later",
        integer=True,
    ),
    "max_gpus": Quantity("count", 1, 100_000, "the most GPUs a plan may use", integer=True),
    "top": Quantity(
        "count", 1, 1_000, "rows shown; more than 1 000 is not a table anyone reads", integer=True
    ),
    # ---- memory, storage and bandwidth (decimal GB as vendors state them)
    "memory_gb": Quantity(
        "memory",
        0,
        4_096,
        "GPU memory; the largest device (unified memory included) has well under 4 TB",
    ),
    "storage_gb": Quantity(
        "memory",
        0,
        1e7,
        "data stored or moved, GB; 10 PB is beyond what one team's project keeps in the cloud",
    ),
    "cpu_bandwidth": Quantity(
        "bandwidth",
        0,
        10_000,
        "host memory bandwidth, GB/s; a 12-channel DDR5 server reaches ~600",
        lo_open=True,
    ),
    # ---- time
    "hours_per_day": Quantity("hours", 0, 24, "a day has 24 hours"),
    "busy_hours": Quantity(
        "hours", 0, 24, "a day has 24 hours; a plan needs some use", lo_open=True
    ),
    "months": Quantity(
        "months",
        0,
        600,
        "project length; 600 months (50 years) outlives any "
        "GPU, and the chart has one point per month",
        lo_open=True,
    ),
    "deadline_days": Quantity("days", 0, 36_500, "a deadline within a century", lo_open=True),
    "checkpoint_min": Quantity(
        "minutes", 0, 10_080, "minutes between checkpoints; at most a week", lo_open=True
    ),
    "restart_min": Quantity("minutes", 0, 10_080, "minutes lost per restart; at most a week"),
    "interruptions_per_day": Quantity(
        "plain", 0, 1_440, "spot interruptions a day; one a minute is the most that means anything"
    ),
    # ---- money (in the currency of the command unless a symbol says otherwise)
    "money": Quantity(
        "money", 0, 1e10, "a price or budget; 10 billion is beyond any purchase gpuwise plans"
    ),
    "budget": Quantity(
        "money",
        0,
        1e10,
        "a budget must be positive; 10 billion is beyond any purchase gpuwise plans",
        lo_open=True,
    ),
    "price_per_gpu_hour": Quantity(
        "rate",
        0,
        100_000,
        "rent per GPU-hour; the dearest accelerator rents for well under 1 000 CNY an hour",
    ),
    "tariff": Quantity(
        "money",
        0,
        100,
        "electricity per kWh; retail tariffs are 0.05–2 in "
        "CNY or USD, 100 only allows what-if runs",
    ),
    "fx": Quantity(
        "plain",
        1,
        100,
        "CNY per US dollar; it has stayed within 6–8.3 since 2005 "
        "— a band of 1–100 allows what-if runs but catches USD per CNY (0.14)",
    ),
    "pue": Quantity(
        "plain",
        1,
        3,
        "power usage effectiveness; 1.0 is the physical floor, rooms worse than 3 are not run",
    ),
    "percent": Quantity("percent", 0, 100, "a share of a price"),
    "margin": Quantity(
        "plain", 0, 0.9, "memory kept free, as a fraction; above 0.9 nothing useful fits"
    ),
    # ---- catalog numbers (overrides and built-in data)
    "catalog_tflops": Quantity(
        "plain",
        0,
        100_000,
        "dense TFLOPS/TOPS per device; the fastest chip is under 20 000 even at FP4",
        lo_open=True,
    ),
    "catalog_bandwidth": Quantity(
        "plain", 0, 100_000, "memory bandwidth, GB/s; HBM3e devices reach ~8 000"
    ),
    "catalog_memory_gb": Quantity("plain", 0, 4_096, "device memory, GB"),
    "catalog_watts": Quantity("plain", 0, 100_000, "watts per device or host"),
    "catalog_price": Quantity(
        "plain",
        0,
        1e9,
        "a catalog price; a billion per card, instance-year or rate is beyond any listed price",
    ),
}
"""Product policy: every accepted range, in one place, with the reason for its bounds."""

_CATALOG_FIELDS: tuple[tuple[str, str], ...] = (
    (r"(^|\.)tflops\.\w+$", "catalog_tflops"),
    (r"(^|\.)memory_bandwidth_gbps$", "catalog_bandwidth"),
    (r"(^|\.)memory_gb$", "catalog_memory_gb"),
    (r"(^|\.)(tdp_w|watts|\w+_w)$", "catalog_watts"),
    (r"(^|\.)(amount|price_per_kwh|\w+_per_(gb|hour|gb_month|10k_requests))$", "catalog_price"),
)
"""Which catalog field paths are checked against which catalog range (by name). Patterns are
strings, compiled (and cached) by `re` on first use: importing this module stays cheap."""


def catalog_quantity(path: str) -> str | None:
    """The range a catalog field is checked against (None: only finiteness is checked)."""
    return next((q for rx, q in _CATALOG_FIELDS if re.search(rx, path)), None)


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
    "hours": _HOURS,
    "months": _MONTHS,
    "days": _DAYS,
    "minutes": _MINUTES,
    "percent": {"%": 1.0},
}
"""Suffix → factor, per family (matched after lower-casing and removing spaces)."""

_NUMBER = r"^([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)(.*)$"
_THOUSANDS = r"^[+-]?\d{1,3}(,\d{3})+(\.\d+)?(?![\d,])"
_SPECIAL = r"^[+-]?(nan|inf|infinity)$"


@dataclass(frozen=True)
class Parsed:
    """A number read from text, in the quantity's base unit, and a currency if one was typed."""

    value: float
    currency: str | None = None


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


def parse(text: str | float | int, quantity: str, flag: str) -> Parsed:
    """Read `text` as a number of `quantity` (no range check; see :func:`read`)."""
    q = QUANTITIES[quantity]
    if isinstance(text, bool):
        raise _fail("units.not_a_number", flag, str(text), q, hint=_hint(q, None))
    if isinstance(text, int | float):
        return Parsed(float(text))
    raw = str(text)
    s = unicodedata.normalize("NFKC", raw).strip().lower().replace(" ", "").replace("_", "")
    if re.match(_SPECIAL, s):
        raise _fail("units.not_finite", flag, raw, q)
    currency: str | None = None
    if q.family in ("money", "rate"):
        s, currency = _strip_currency(s)
        if currency == "?":
            raise _fail("units.two_currencies", flag, raw, q)
    elif s[:1] in ("¥", "$", "€") or s.endswith(("元", "rmb", "cny", "usd", "eur")):
        raise _fail("units.bad_unit", flag, raw, q, hint=_hint(q, "money"))
    if q.family == "rate":
        s = _strip_per_hour(s, raw, flag, q)
    if re.match(_THOUSANDS, s):
        s = s.replace(",", "")
    elif re.match(r"^[+-]?\d+,\d+", s):
        raise _fail("units.not_a_number", flag, raw, q, hint=_hint(q, "decimal_comma"))
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
    return Parsed(value, currency)


def _strip_per_hour(s: str, raw: str, flag: str, q: Quantity) -> str:
    for tail in _PER_HOUR:
        if s.endswith(tail):
            return s[: -len(tail)]
    if "/" in s:
        raise _fail("units.bad_unit", flag, raw, q, hint=_hint(q, "per_hour"))
    return s


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


def read(text: str | float | int, quantity: str, flag: str) -> Parsed:
    """Parse and range-check one number; every problem is one UserError line (exit 2)."""
    parsed = parse(text, quantity, flag)
    shown = text if isinstance(text, str) else None
    check(parsed.value, quantity, flag, shown)
    if QUANTITIES[quantity].integer:
        return Parsed(float(round(parsed.value)), parsed.currency)
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
