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


_said: set[str] = set()


def first_time(key: str) -> bool:
    """True the first time `key` is asked about in this command run: a warning that every
    catalog load would repeat (a skipped user file) is printed once per command."""
    if key in _said:
        return False
    _said.add(key)
    return True


def new_run() -> None:
    """Forget what was said (cli.app calls this at the start of every command run)."""
    _said.clear()
