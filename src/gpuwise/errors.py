"""Errors that reach the user.

A :class:`UserError` is bad input: the CLI prints its one-line message (in the user's language)
and exits 2, never a traceback. The message is a key in the bilingual message catalog plus its
parameters, so the same error reads correctly in Chinese and English.
"""

from __future__ import annotations

from typing import Any


class GpuwiseError(Exception):
    """Base of every error gpuwise raises on purpose."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params

    def render(self) -> str:
        """The message in the current language (imported late: i18n is not needed to raise)."""
        from gpuwise.i18n import t

        return t(self.key, **self.params)

    def __str__(self) -> str:
        return self.render()


class UserError(GpuwiseError):
    """Something the user gave us is wrong; exit code 2."""


class CatalogError(UserError):
    """A catalog or override file is malformed; the message names the file, line and field."""
