"""Shared console and JSON output (fixed behaviour so golden tests are stable)."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from rich.console import Console


def console() -> Console:
    """A console on stdout; colour only on a real terminal.

    Width comes from COLUMNS when set; when piped to a file, tables get 160 columns instead of
    rich's 80 so that ids and numbers are not cut.
    """
    width = int(os.environ["COLUMNS"]) if os.environ.get("COLUMNS", "").isdigit() else None
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
    """Print JSON with sorted keys and real Unicode (Chinese stays readable)."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True, default=str))
    sys.stdout.write("\n")


def fmt_num(value: float | None, digits: int = 1) -> str:
    """A number for a table cell; '—' for none."""
    if value is None:
        return "—"
    if abs(value - round(value)) < 1e-9 and abs(value) >= 10:
        return f"{value:,.0f}"
    return f"{value:,.{digits}f}"
