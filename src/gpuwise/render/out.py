"""Shared console and JSON output (fixed behaviour so golden tests are stable)."""

from __future__ import annotations

import json
import math
import os
import sys
from typing import Any

from pydantic import BaseModel
from rich.console import Console

from gpuwise.render.console_text import can_show, harden

MIN_WIDTH, MAX_WIDTH = 40, 1000
"""COLUMNS is clamped: 0 made rich print nothing at all, 5 an unreadable column of borders."""


def console() -> Console:
    """A console on stdout; colour only on a real terminal.

    Width comes from COLUMNS when set; when piped to a file, tables get 160 columns instead of
    rich's 80 so that ids and numbers are not cut.
    """
    harden(sys.stdout)
    width = int(os.environ["COLUMNS"]) if os.environ.get("COLUMNS", "").isdigit() else None
    if width is not None:
        width = min(max(width, MIN_WIDTH), MAX_WIDTH)
    if width is None and not sys.stdout.isatty():
        width = 160
    return Console(
        file=sys.stdout,
        width=width,
        highlight=False,
        soft_wrap=False,
        no_color="NO_COLOR" in os.environ,
        emoji=False,
        markup=False,
    )


def emit_json(data: Any) -> None:
    """Print JSON with sorted keys and real Unicode (Chinese stays readable).

    Never NaN or Infinity (JSON has neither; most readers reject them): a non-finite number is
    written as null and named on stderr, so the bug upstream is seen, not hidden. On a console
    that cannot show the text (GBK, ASCII), non-ASCII characters are escaped (\\uXXXX), which
    every JSON reader decodes back exactly.
    """
    clean = finite(data)
    text = json_text(clean, checked=True)
    if not can_show(sys.stdout, text):
        text = json_text(clean, ensure_ascii=True, checked=True)
    sys.stdout.write(text)
    sys.stdout.write("\n")


def finite(data: Any) -> Any:
    """`data` with NaN and ±Infinity as null; their paths are named on stderr."""
    bad: list[str] = []
    clean = _finite(data, "$", bad)
    if bad:
        from gpuwise.i18n import t

        sys.stderr.write(t("output.nonfinite_json", paths=", ".join(bad[:5])) + "\n")
    return clean


def json_text(data: Any, ensure_ascii: bool = False, checked: bool = False) -> str:
    """The `--json` text of `data`: sorted keys, real Unicode, never NaN (`checked`: `data`
    already went through :func:`finite`). `gpuwise serve` and `gpuwise mcp` answer with it."""
    clean = data if checked else finite(data)
    options: dict[str, Any] = {"indent": 2, "sort_keys": True, "default": str, "allow_nan": False}
    return json.dumps(clean, ensure_ascii=ensure_ascii, **options)


def _finite(value: Any, path: str, bad: list[str]) -> Any:
    """A copy of `value` with NaN and ±Infinity replaced by None (their paths go to `bad`); a
    report model (pydantic) is written as its JSON document."""
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    if isinstance(value, float) and not math.isfinite(value):
        bad.append(path)
        return None
    if isinstance(value, float) and value == 0.0:
        return 0.0  # never "-0.0" in JSON
    if isinstance(value, dict):
        return {k: _finite(v, f"{path}.{k}", bad) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v, f"{path}[{i}]", bad) for i, v in enumerate(value)]
    return value


def fmt_num(value: float | None, digits: int = 1) -> str:
    """A number for a table cell; '—' for none."""
    if value is None:
        return "—"
    if abs(value - round(value)) < 1e-9 and abs(value) >= 10:
        return f"{value:,.0f}"
    return f"{value:,.{digits}f}"
