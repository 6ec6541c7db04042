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


_one_shot_process = False
"""True once `run()` (the console script) owns this process: it ends with the command, so what
the collector would find at the end of a phase is not worth a walk (see `resume_gc`)."""


def pause_gc_for_process() -> None:
    """Called by the console script before start-up: no cyclic collection while Python imports
    typer, pydantic and gpuwise and registers the command (hundreds of thousands of long-lived
    objects the collector would walk again and again, to free nothing). `resume_gc` ends it."""
    global _one_shot_process
    _one_shot_process = True
    gc.disable()


def resume_gc() -> None:
    """Collection back on, as before: in the console script's process every object made so far is
    first moved out of the collector's reach (`gc.freeze`), so turning it back on does not walk
    them all (about 0.01 s after `plan`, issue 26); a long-running command (serve, watch,
    supervise) keeps collecting what it makes from then on. Called from tests (no console
    script), it only turns collection back on."""
    if _one_shot_process:
        gc.freeze()
    gc.enable()


def end_start_up() -> None:
    """Before the command runs: collection back on if `pause_gc_for_process` turned it off."""
    if _one_shot_process and not gc.isenabled():
        resume_gc()


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
            resume_gc()


def version_line() -> str:
    """`gpuwise 0.1.0`, from the installed package's metadata."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        number = version("gpuwise")
    except PackageNotFoundError:
        number = "unknown (not installed)"
    return t("flags.version", version=number)
