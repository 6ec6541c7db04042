"""The `--debug` switch, readable from anywhere: diagnostics go to stderr only when it is on."""

from __future__ import annotations

import sys

_on: list[bool] = [False]


def set_debug(on: bool) -> None:
    """Turn diagnostics on or off for the rest of the process (cli.app does this)."""
    _on[0] = on


def debug_on() -> bool:
    """Whether `--debug` was given."""
    return _on[0]


def debug(message: str) -> None:
    """One `debug:` line on stderr when --debug is on (never translated: it is for reports)."""
    if _on[0]:
        sys.stderr.write(f"debug: {message}\n")
