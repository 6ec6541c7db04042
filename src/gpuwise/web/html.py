"""A small HTML builder that escapes every text it is given: markup is only ever made here,
so text from a request or the catalog can never become a tag or an attribute."""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import Union

Child = Union["Markup", str, int, float, None, Iterable["Child"]]


class Markup(str):
    """Text that is already HTML (built by :func:`el` or escaped by :func:`esc`)."""


def esc(value: object) -> Markup:
    """Any value as HTML-escaped text."""
    return value if isinstance(value, Markup) else Markup(html.escape(str(value), quote=True))


def _children(children: Iterable[Child]) -> str:
    out: list[str] = []
    for child in children:
        if child is None or child is False:
            continue
        if isinstance(child, str | int | float):
            out.append(esc(child))
        else:
            out.append(_children(child))
    return "".join(out)


VOID = {"input", "br", "meta", "link", "hr", "img"}


def el(tag: str, attrs: dict[str, object] | None = None, *children: Child) -> Markup:
    """`<tag attrs…>children…</tag>`; a None or False attribute is left out, True is bare."""
    parts = [tag]
    for name, value in (attrs or {}).items():
        if value is None or value is False:
            continue
        key = name.rstrip("_").replace("_", "-")
        parts.append(key if value is True else f'{key}="{esc(value)}"')
    head = "<" + " ".join(parts) + ">"
    if tag in VOID:
        return Markup(head)
    return Markup(f"{head}{_children(children)}</{tag}>")


def join(*children: Child) -> Markup:
    """Several pieces as one fragment."""
    return Markup(_children(children))
