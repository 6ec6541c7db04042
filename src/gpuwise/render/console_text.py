"""Output on any console: a GBK, cp1252 or ASCII stream never raises UnicodeEncodeError.

Python raises mid-output when a character cannot be encoded (`PYTHONIOENCODING=gbk`,
`LC_ALL=C`, a pipe on Chinese Windows). :func:`harden` sets an error handler on stdout and stderr
that writes the closest thing the console can show — `¥` becomes `￥` on GBK and `CNY ` on
ASCII, `≈` `~`, `×` `x`, box drawing `-` `|` `+` — and `?` for anything else. Rich already draws
ASCII boxes when the stream's encoding is not UTF (its `ascii_only` option); this covers text.
"""

from __future__ import annotations

import codecs
import contextlib
from typing import Any

HANDLER = "gpuwise-replace"

REPLACEMENTS: dict[str, tuple[str, ...]] = {
    "¥": ("￥", "CNY "),
    "￥": ("¥", "CNY "),
    "€": ("EUR ",),
    "≈": ("~",),
    "×": ("x",),
    "—": ("-",),
    "–": ("-",),
    "…": (".",),  # one column, like the original: rich has measured the line already
    "•": ("·", "*"),
    "·": ("*",),
    "→": ("->",),
    "←": ("<-",),
    "↔": ("<->",),
    "≤": ("<=",),
    "≥": (">=",),
    "±": ("+/-",),
    "✓": ("√", "v"),
    "✗": ("×", "x"),
    "°": (" deg",),
    "µ": ("u",),
    "“": ('"',),
    "”": ('"',),
    "‘": ("'",),
    "’": ("'",),
    "█": ("#",),
    "\u00a0": (" ",),
}
"""Characters gpuwise prints, with what to show instead, best first (the first one the console
can encode is used)."""


def _box(ch: str) -> str | None:
    """ASCII for box-drawing characters (U+2500–U+257F): lines, corners and joints."""
    code = ord(ch)
    if not 0x2500 <= code <= 0x257F:
        return None
    name = ch.encode("ascii", "namereplace").decode().upper()
    if "VERTICAL AND" in name or "DOWN AND" in name or "UP AND" in name:
        return "+"
    if "VERTICAL" in name:
        return "|"
    return "-"


def _encodable(text: str, encoding: str) -> bool:
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def _replace(err: UnicodeError) -> tuple[str, int]:
    """The codecs error handler: closest encodable text for each character in the error."""
    if not isinstance(err, UnicodeEncodeError):
        raise err
    out: list[str] = []
    for ch in err.object[err.start : err.end]:
        candidates = (*REPLACEMENTS.get(ch, ()), _box(ch) or "?")
        out.append(next((c for c in candidates if _encodable(c, err.encoding)), "?"))
    return "".join(out), err.end


codecs.register_error(HANDLER, _replace)


def harden(stream: Any) -> None:
    """Make `stream` replace what its encoding cannot show instead of raising (if it can)."""
    encoding = (getattr(stream, "encoding", None) or "utf-8").lower().replace("_", "-")
    if encoding.startswith("utf"):
        return
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None and getattr(stream, "errors", None) != HANDLER:
        with contextlib.suppress(ValueError, OSError):
            reconfigure(errors=HANDLER)


def can_show(stream: Any, text: str) -> bool:
    """Whether `stream` can show `text` exactly (used to pick English on an ASCII console)."""
    return _encodable(text, getattr(stream, "encoding", None) or "utf-8")
