"""Bilingual messages: one catalog of keys, each with `en` and `zh` text.

The language comes from `--lang`, then `GPUWISE_LANG`, then the locale (`LC_ALL`, `LC_MESSAGES`,
`LANG`): anything starting with `zh` picks Chinese, everything else English.
"""

from __future__ import annotations

import os
from functools import cache
from importlib import resources
from typing import Any, Literal

import tomllib

Lang = Literal["en", "zh"]
LANGS: tuple[Lang, ...] = ("en", "zh")
_current: list[Lang] = []


def detect_lang(explicit: str | None = None) -> Lang:
    """Pick the language: explicit value, then GPUWISE_LANG, then the POSIX locale variables."""
    for value in (explicit, os.environ.get("GPUWISE_LANG")):
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var)
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


def set_lang(lang: Lang) -> None:
    """Set the language used by :func:`t` for the rest of the process."""
    _current[:] = [lang]


def get_lang() -> Lang:
    """The language in force (detected once if never set)."""
    if not _current:
        _current.append(detect_lang())
    return _current[0]


@cache
def messages() -> dict[str, dict[str, str]]:
    """All message keys with their texts, read from the package's messages.toml files."""
    out: dict[str, dict[str, str]] = {}
    folder = resources.files("gpuwise.i18n")
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".toml"):
            data = tomllib.loads(entry.read_text(encoding="utf-8"))
            for key, texts in _flatten(data).items():
                out[key] = texts
    return out


def _flatten(data: dict[str, Any], prefix: str = "") -> dict[str, dict[str, str]]:
    """Turn nested TOML tables into dotted keys; a table with `en` is a message."""
    out: dict[str, dict[str, str]] = {}
    for key, value in data.items():
        if not isinstance(value, dict):
            continue
        name = f"{prefix}{key}"
        if "en" in value or "zh" in value:
            out[name] = {k: v for k, v in value.items() if isinstance(v, str)}
        else:
            out.update(_flatten(value, name + "."))
    return out


def t(key: str, lang: Lang | None = None, **params: Any) -> str:
    """The text for `key` in the current language, formatted with `params`.

    An unknown key returns the key itself, so a missing message shows up plainly instead of
    crashing; a test checks that every key used in the code exists in both languages.
    """
    texts = messages().get(key)
    if texts is None:
        return key
    text = texts.get(lang or get_lang()) or texts.get("en", key)
    try:
        return text.format(**params) if params else text
    except (KeyError, IndexError, ValueError):
        return text
