"""Before any output: streams that cannot crash on the console's encoding, the --debug switch,
a language the console can show, and the version line."""

from __future__ import annotations

import contextlib
import gc
import sys
from collections.abc import Iterator

from gpuwise.diag import debug, set_debug
from gpuwise.i18n import get_lang, set_lang, t
from gpuwise.render.console_text import can_show, harden


def prepare_streams(debug_on: bool, lang_given: bool = True) -> None:
    """Harden stdout/stderr; Chinese picked from the locale falls back to English on a console
    that cannot show Chinese (`LC_ALL=C`, cp1252), where it would print as question marks."""
    set_debug(debug_on)
    harden(sys.stdout)
    harden(sys.stderr)
    if not lang_given and get_lang() == "zh" and not can_show(sys.stdout, "中文"):
        debug(f"stdout encoding {sys.stdout.encoding} cannot show Chinese: English instead")
        set_lang("en")


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while a one-shot command imports, computes and prints.

    Why: start-up makes hundreds of thousands of long-lived objects (modules, pydantic classes,
    the unpickled catalog, the message table) and every few hundred allocations the collector
    walks the young ones, now and then all of them again: about a tenth of `gpuwise plan`'s CPU
    (issue 26). Reference counting still frees everything not in a cycle, and the process ends
    with the command; long-running commands (serve, watch, supervise) do not use this.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def version_line() -> str:
    """`gpuwise 0.1.0`, from the installed package's metadata."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        number = version("gpuwise")
    except PackageNotFoundError:
        number = "unknown (not installed)"
    return t("flags.version", version=number)
