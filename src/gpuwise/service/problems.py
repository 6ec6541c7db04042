"""A request that does not fit its schema, as one line in the user's language (never
pydantic's multi-line dump): the same promise the CLI makes for bad flags."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any

from gpuwise.i18n import t


def _field(loc: Sequence[Any]) -> str:
    """`body.frameworks.0` → `frameworks[0]`; the transport part (body, query) dropped."""
    parts = [p for p in loc if p not in ("body", "query", "form")]
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "request"


def one_line(errors: Sequence[Any], known: Sequence[str] = ()) -> str:
    """The first problem of a validation error list; `known`: the request's field names (for
    a did-you-mean on an unknown one)."""
    if not errors:
        return t("web.bad_request")
    err = errors[0]
    kind, field = str(err.get("type", "")), _field(err.get("loc", ()))
    ctx = err.get("ctx") or {}
    value = repr(err.get("input"))[:60]
    if kind == "missing":
        return t("web.missing_field", field=field)
    if kind == "extra_forbidden":
        close = difflib.get_close_matches(field, list(known), n=1)
        return t("web.unknown_field", field=field, hint=close[0] if close else ", ".join(known))
    if kind in ("string_too_long", "too_long"):
        return t("web.too_long", field=field, limit=ctx.get("max_length", "?"))
    if kind in ("json_invalid", "model_attributes_type", "dict_type", "model_type"):
        return t("web.bad_json")
    return t("web.bad_field", field=field, value=value, problem=str(err.get("msg", kind)))
