"""Bilingual messages: one catalog of keys, each with `en` and `zh` text.

The language comes from `--lang`, then `GPUWISE_LANG`, then the locale (`LC_ALL`, `LC_MESSAGES`,
`LANG`): anything starting with `zh` picks Chinese, everything else English.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import string
from collections.abc import Iterator
from contextvars import ContextVar
from functools import cache
from pathlib import Path
from typing import Any, Literal

Lang = Literal["en", "zh"]
LANGS: tuple[Lang, ...] = ("en", "zh")
_current: list[Lang] = []
_scoped: ContextVar[Lang | None] = ContextVar("gpuwise_lang", default=None)
"""The language of one request in `gpuwise serve` / `gpuwise mcp`: set per thread or task by
:func:`using_lang`, so two requests in different languages never see each other's."""


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


@contextlib.contextmanager
def using_lang(lang: Lang) -> Iterator[None]:
    """Speak `lang` inside the block (this thread or task only); the process language is
    untouched. The web and MCP servers answer each request in its own language this way."""
    token = _scoped.set(lang)
    try:
        yield
    finally:
        _scoped.reset(token)


def get_lang() -> Lang:
    """The language in force: a :func:`using_lang` block's, else the process language
    (detected once if never set)."""
    scoped = _scoped.get()
    if scoped is not None:
        return scoped
    if not _current:
        _current.append(detect_lang())
    return _current[0]


@cache
def messages() -> dict[str, dict[str, str]]:
    """All message keys with their texts, read from the package's *.toml files.

    Parsing the ~20 files costs more than 0.1 s, paid by every command before it prints a word,
    so the merged table is kept as JSON in the user cache, keyed by each file's name, size and
    mtime; any change to a file (an upgrade, an edit) reads the TOML again.
    """
    files = _message_files()
    cached = _cache_path(files)
    if cached is not None:
        with contextlib.suppress(OSError, ValueError):
            data: dict[str, dict[str, str]] = json.loads(cached.read_text(encoding="utf-8"))
            return data
    import tomllib

    out: dict[str, dict[str, str]] = {}
    for entry in files:
        out.update(_flatten(tomllib.loads(entry.read_text(encoding="utf-8"))))
    if cached is not None:
        _write_cache(cached, out)
    return out


def _message_files() -> list[Any]:
    """The package's message files, sorted by name. Installed as files, a folder listing;
    importlib.resources (4 ms to import) only for a zipped install."""
    folder = Path(__file__).parent
    if folder.is_dir():
        return sorted(folder.glob("*.toml"), key=lambda e: e.name)
    from importlib import resources

    found = (e for e in resources.files("gpuwise.i18n").iterdir() if e.name.endswith(".toml"))
    return sorted(found, key=lambda e: e.name)


def _cache_path(files: list[Any]) -> Path | None:
    """The cache file for this exact set of message files (None when they are not on disk)."""
    h = hashlib.sha256()
    for entry in files:
        try:
            st = os.stat(str(entry))
        except OSError:
            return None  # not plain files (a zip import): read the TOML every time
        h.update(f"{entry.name}|{st.st_size}|{st.st_mtime_ns}".encode())
    from gpuwise.dirs import cache_dir

    return cache_dir() / f"messages-{h.hexdigest()[:20]}.json"


def _write_cache(path: Path, data: dict[str, dict[str, str]]) -> None:
    """Write atomically; a read-only or missing cache folder only costs the speed-up."""
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        for old in path.parent.glob("messages-*.json"):
            old.unlink(missing_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)


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


def unsigned_zero(text: str) -> str:
    """`text` without the sign of a number that shows as zero ('-0', '-0.0', '-0.00%'): a
    value that rounds to zero has no sign worth printing."""
    if text.startswith("-") and not any(c in "123456789" for c in text):
        return text[1:]
    return text


class _Formatter(string.Formatter):
    """str.format that never prints '-0.0' (a tiny negative rounded away, or -0.0 itself)."""

    def format_field(self, value: Any, format_spec: str) -> str:
        out = super().format_field(value, format_spec)
        return unsigned_zero(out) if isinstance(value, float) else out


FORMATTER = _Formatter()


def fill(text: str, params: dict[str, Any]) -> str:
    """`text.format(**params)` without negative zeros (see `unsigned_zero`)."""
    return FORMATTER.vformat(text, (), params)


def t(key: str, lang: Lang | None = None, **params: Any) -> str:
    """The text for `key` in the current language, formatted with `params`.

    An unknown key returns the key itself, so a missing message shows up plainly instead of
    crashing; a test checks that every key used in the code exists in both languages.
    """
    texts = messages().get(key)
    if texts is None:
        return key
    lang = lang or get_lang()
    text = texts.get(lang) or texts.get("en", key)
    with contextlib.suppress(KeyError, IndexError, ValueError):
        text = fill(text, params) if params else text
    return tidy_zh(text) if lang == "zh" and params else text


_ZH_DOUBLED = (("。）", "）"), ("。。", "。"), ("，。", "。"), ("；。", "。"), ("：。", "。"))


_CJK = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"


def unspaced_zh(text: str, words: list[str]) -> str:
    """Chinese text with the spaces around catalog words written in Chinese taken out where
    Chinese stands on the other side: templates space a filled-in name for the Latin word it
    usually is (在 {arch} 上), a Chinese one sits without (blind w29-04: "在 达芬奇架构 上").
    Only catalog words: a user's own name keeps its space ("托管任务 任务")."""
    for word in {w for w in words if w}:
        if re.match(f"[{_CJK}]", word[0]):
            text = re.sub(f"(?<=[{_CJK}]) (?={re.escape(word)})", "", text)
        if re.match(f"[{_CJK}]", word[-1]):
            text = re.sub(f"(?<={re.escape(word)}) (?=[{_CJK}])", "", text)
    return text


def tidy_zh(text: str) -> str:
    """Chinese punctuation as a person writes it once a sentence is filled in: a filled-in
    note that ends in 。 inside （…）, or before the template's own 。, is not doubled."""
    for doubled, single in _ZH_DOUBLED:
        while doubled in text:
            text = text.replace(doubled, single)
    return text
