"""Form and query values → a typed request, for the pages (no JavaScript: plain GET and POST).

Only the request's own fields are taken; empty boxes are left out (the CLI's defaults apply),
a ticked box is True, and a list field is typed comma-separated.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar
from urllib.parse import parse_qsl

from pydantic import ValidationError

from gpuwise.errors import UserError
from gpuwise.i18n import Lang, using_lang
from gpuwise.service.requests import Request

R = TypeVar("R", bound=Request)
T = TypeVar("T")
MAX_FIELDS = 100


def parse_form(body: bytes) -> dict[str, str]:
    """An application/x-www-form-urlencoded body; the last value of a repeated name wins."""
    pairs = parse_qsl(body.decode("utf-8", errors="replace"), max_num_fields=MAX_FIELDS)
    return dict(pairs)


def values(source: Mapping[str, str], model: type[Request]) -> dict[str, Any]:
    """The non-empty values of `model`'s fields, converted for pydantic."""
    out: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        raw = source.get(name)
        if raw is None or not str(raw).strip():
            continue
        text = str(raw).strip()
        annotation = str(info.annotation)
        if "bool" in annotation and "float" not in annotation:
            out[name] = text.lower() in ("on", "true", "1", "yes")
        elif "list" in annotation:
            out[name] = [p for p in text.replace("，", ",").replace(" ", ",").split(",") if p]
        else:
            out[name] = text
    return out


def build(model: type[R], source: Mapping[str, str]) -> R:
    """The request, or a UserError whose message is the one line to show."""
    from gpuwise.service.problems import one_line

    try:
        return model.model_validate(values(source, model))
    except ValidationError as exc:
        raise UserError(
            "web.form_problem", problem=one_line(exc.errors(), list(model.model_fields))
        ) from None


def in_lang(lang: Lang, fn: Callable[..., T], *args: Any) -> T:
    """Run `fn` speaking `lang` (called in a worker thread: the language is this call's)."""
    with using_lang(lang):
        return fn(*args)
