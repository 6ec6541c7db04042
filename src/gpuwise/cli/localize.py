"""Give click's and typer's own strings (usage, option errors) to the user in their language.

click marks its messages for gettext (`from gettext import gettext as _` in each module); this
module points that hook at gpuwise's message catalog (i18n/click.toml) for Chinese, leaving
every string click has no translation for as it is.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from gpuwise.i18n import Lang, messages

CLICK_MODULES = (
    "click.core",
    "click.formatting",
    "click.exceptions",
    "click.decorators",
    "click.parser",
    "click.types",
    "typer.core",
)


_ORIGINAL: dict[str, Callable[[str], str]] = {}
_ORIGINAL_N: dict[str, Callable[[str, str, int], str]] = {}


def localize_click(lang: Lang) -> None:
    """Route click's gettext calls through the `click.*` messages; English restores gettext."""
    table = {
        key.removeprefix("click."): texts["zh"]
        for key, texts in messages().items()
        if key.startswith("click.") and "zh" in texts
    }

    def translate(msgid: str) -> str:
        return table.get(msgid, msgid)

    def translate_n(singular: str, plural: str, n: int) -> str:
        return table.get(singular if n == 1 else plural, singular if n == 1 else plural)

    for name in CLICK_MODULES:
        module = importlib.import_module(name)
        if hasattr(module, "_"):
            original = _ORIGINAL.setdefault(name, module._)
            module._ = translate if lang == "zh" else original  # type: ignore[attr-defined]
        if hasattr(module, "ngettext"):  # plural-aware messages ("Did you mean …?")
            original_n = _ORIGINAL_N.setdefault(name, module.ngettext)
            module.ngettext = translate_n if lang == "zh" else original_n  # type: ignore[attr-defined]
