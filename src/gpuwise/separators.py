"""Decimal marks and digit grouping in numbers people type or paste (pure; used by units.parse).

`1,98` from a semicolon CSV (a European spreadsheet's export) is 1.98, not 198; `1,500.00`,
`1.500,00` and `1 500,00` are all 1500; `1,500` is 1500 where a dot is the decimal mark but could
be 1.5 or 1500 in a file whose decimal mark is a comma — such a number is refused with both
readings, never guessed (review 3, oi-semicolon: a 100× price stored silently).

The *decimal context* says which mark the source uses for decimals:

- ``"."``: flags, JSON, TOML, comma-separated files. A lone comma followed by three digits is
  grouping (`1,500` = 1500); a lone comma followed by other than three digits is refused with a
  hint to use a dot (`1,5` on a command line is more likely a typo than a European decimal).
- ``","``: semicolon-separated files. A lone comma is the decimal mark (`1,98` = 1.98) unless
  three digits follow and it could also be grouping (`1,500`, `1.500`): refused as ambiguous.
- ``"?"``: tab-separated files, which either locale writes: any lone mark followed by exactly three
  digits (after 1-3 leading digits) is ambiguous, any other lone mark is the decimal.

In every context a number that uses both marks (`1,500.00`, `1.500,00`) is unambiguous — the
last mark is the decimal — and so is a mark repeated (`1.500.000`: grouping).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

DecimalMark = Literal[".", ",", "?"]
DECIMAL_MARKS: tuple[DecimalMark, ...] = (".", ",", "?")

_HEAD = re.compile(r"^([+-]?)([0-9][0-9.,]*|[.,][0-9][0-9.,]*)(.*)$")
_SPACED = re.compile(r"\d \d")
_SPACE_GROUPED = re.compile(r"^(\D*?)([+-]?\d{1,3}(?: \d{3})+)(?![\d ])")


@dataclass(frozen=True)
class Reading:
    """What a number's marks mean: `text` with a dot as the only mark (or None), else why not."""

    text: str | None
    problem: Literal["", "not_a_number", "decimal_comma", "ambiguous"] = ""
    readings: tuple[float, ...] = ()


def ungroup_spaces(s: str) -> tuple[str, bool] | None:
    """`1 500,00` → (`1500,00`, True): spaces (NFKC turns no-break and thin spaces into spaces)
    between groups of three digits are grouping, and say so — the one mark left is then the
    decimal. Digits split by spaces any other way (`1 5`) are not a number (None), never glued
    together silently. Spaces elsewhere (`8 usd`) are left."""
    m = _SPACE_GROUPED.match(s)
    if m:
        s = s[: m.start(2)] + m.group(2).replace(" ", "") + s[m.end(2) :]
    return None if _SPACED.search(s) else (s, m is not None)


def _grouped(s: str, mark: str) -> bool:
    """1-3 leading digits (not a lone 0), then groups of exactly three after each mark."""
    return re.fullmatch(r"[1-9]\d{0,2}(?:" + re.escape(mark) + r"\d{3})+", s) is not None


def read_marks(s: str, decimal: DecimalMark, spaced: bool = False) -> Reading:
    """`s` (lower-case, no spaces) with its decimal mark made a dot and grouping removed;
    `spaced`: its digits were grouped by spaces (see :func:`ungroup_spaces`)."""
    m = _HEAD.match(s)
    if not m:
        return Reading(s)
    sign, head, rest = m.groups()
    if "." not in head and "," not in head:
        return Reading(s)
    out = _head(head, decimal, spaced)
    if out.text is None:
        return out
    return Reading(sign + out.text + rest)


def _head(head: str, decimal: DecimalMark, spaced: bool) -> Reading:
    dots, commas = head.count("."), head.count(",")
    if dots and commas:
        mark = "." if head.rfind(".") > head.rfind(",") else ","
        group = "," if mark == "." else "."
        whole, _, frac = head.rpartition(mark)
        if head.count(mark) != 1 or not frac or not _grouped(whole, group):
            return Reading(None, "not_a_number")
        return Reading(whole.replace(group, "") + "." + frac)
    mark = "." if dots else ","
    if head.count(mark) > 1:
        ok = _grouped(head, mark)
        return Reading(head.replace(mark, "")) if ok else Reading(None, "not_a_number")
    whole, _, frac = head.partition(mark)
    if not frac:  # "5." is 5; "5," is nothing
        return Reading(whole) if mark == "." and whole else Reading(None, "not_a_number")
    as_decimal = (whole or "0") + "." + frac
    if spaced and len(frac) != 3:  # `1 500,00`: spaces group, so the mark is the decimal
        return Reading(as_decimal)
    if spaced:  # `1 500,000`: 1500 or 1,500,000
        return Reading(None, "ambiguous", (float(as_decimal), float(whole + frac)))
    if not _grouped(head, mark):  # only a decimal reading exists
        if mark == "," and decimal == ".":
            return Reading(None, "decimal_comma")
        return Reading(as_decimal)
    if decimal == ".":
        return Reading(whole + frac if mark == "," else as_decimal)
    return Reading(None, "ambiguous", (float(as_decimal), float(whole + frac)))
