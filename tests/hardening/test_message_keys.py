"""No raw message key ever reaches a user.

1. Every key used anywhere in src — as the first argument of t(), an error, Note.of(), a note,
   or as the key of a `(key, params)` pair — exists; keys built with f-strings are enumerated
   from their domains where the code has them, and otherwise must match at least one message.
2. Every message renders in both languages with sample arguments: no `{placeholder}` is left
   and the key itself is never what comes back.
"""

from __future__ import annotations

import ast
import re
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import pytest

from gpuwise.i18n import messages, t

SRC = Path(__file__).parents[2] / "src" / "gpuwise"
KEY = re.compile(r"[a-z_]+\.[a-z0-9_.\-]+")
CALLS = {"t", "of", "note", "_msg", "_fail", "UserError", "CatalogError", "GpuwiseError"}
LEFT_OVER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*(![rsa])?(:[^{}]*)?\}")


def _name(func: ast.expr) -> str:
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def _key_nodes(tree: ast.AST) -> Iterator[ast.expr]:
    """String nodes in the positions where the code passes a message key."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and _name(node.func) in CALLS:
            yield node.args[0]
        elif isinstance(node, ast.Tuple) and len(node.elts) == 2:
            second = node.elts[1]
            if isinstance(second, ast.Dict) or (
                isinstance(second, ast.Call) and _name(second.func) == "dict"
            ):
                yield node.elts[0]


def _template(node: ast.JoinedStr) -> str:
    return "".join(str(v.value) if isinstance(v, ast.Constant) else "{}" for v in node.values)


def used_keys() -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """(literal keys, f-string templates), each with the file it is in."""
    literal: set[tuple[str, str]] = set()
    templates: set[tuple[str, str]] = set()
    for path in SRC.rglob("*.py"):
        where = str(path.relative_to(SRC))
        for node in _key_nodes(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if KEY.fullmatch(node.value):
                    literal.add((node.value, where))
            elif isinstance(node, ast.JoinedStr):
                text = _template(node)
                if re.fullmatch(r"[a-z_]+\.[a-z0-9_.\-{}]*", text) and text.index("{") > 2:
                    templates.add((text, where))
    return literal, templates


def domains() -> dict[str, set[str]]:
    """The values some f-string keys are built from, read from the code and the catalog."""
    from gpuwise import units
    from gpuwise.catalog import load_catalog
    from gpuwise.catalog.schema_cloud import BILLINGS
    from gpuwise.estimate.memory import BREAKDOWN_KEYS

    cat = load_catalog()
    return {
        "class.{}": {g.gpu_class for g in cat.gpus},
        "billing.{}": set(BILLINGS),
        "part.{}": set(BREAKDOWN_KEYS),
        "platform.{}": {p.id for p in cat.extra("host_platform")},
        "units.takes_{}": set(get_args(units.Family)),
        "units.looks_{}": {"memory", "count", "time", "money", "rate"},
        "units.hint_{}": {"decimal_comma", "per_hour"},
    }


def test_every_literal_key_exists() -> None:
    literal, _ = used_keys()
    assert len(literal) > 100, "the scan found too few keys"
    known = set(messages())
    missing = sorted(f"{k} ({where})" for k, where in literal if k not in known)
    assert not missing, missing


def test_every_fstring_key_is_enumerated_or_matches() -> None:
    _, templates = used_keys()
    assert templates, "the scan found no f-string keys"
    known = set(messages())
    enumerated = domains()
    problems: list[str] = []
    for template, where in sorted(templates):
        if template in enumerated:
            problems += [
                f"{template.format(v)} ({where})"
                for v in sorted(enumerated[template])
                if template.format(v) not in known
            ]
            continue
        rx = re.compile(re.escape(template).replace(r"\{\}", r"[A-Za-z0-9_.\-]+"))
        if not any(rx.fullmatch(k) for k in known):
            problems.append(f"{template} ({where}): no message matches")
    assert not problems, problems


def _sample_params(texts: dict[str, str]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for text in texts.values():
        for _, field, spec, _ in string.Formatter().parse(text):
            if field is None:
                continue
            name = re.split(r"[.\[]", field)[0]
            if name and not name.isdigit():
                params[name] = 1234.5 if spec else f"<{name}>"
    return params


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_message_renders_in_both_languages(lang: str) -> None:
    problems: list[str] = []
    for key, texts in messages().items():
        params = _sample_params(texts)
        try:
            texts[lang].format(**params)
        except (KeyError, IndexError, ValueError, AttributeError) as exc:
            problems.append(f"{key}: {exc!r}")
            continue
        rendered = t(key, lang=lang, **params)  # type: ignore[arg-type]
        if rendered == key or LEFT_OVER.search(rendered):
            problems.append(f"{key}: {rendered!r}")
    assert not problems, problems


def test_notes_from_the_estimator_render() -> None:
    """The note that once printed as `estimate.note_beyond_context`."""
    from gpuwise.catalog import load_catalog
    from gpuwise.estimate.constants import MemoryConstants
    from gpuwise.estimate.memory import estimate_memory
    from gpuwise.estimate.request import MemoryRequest

    cat = load_catalog()
    req = MemoryRequest(model=cat.model("qwen2.5:7b"), context=10**6)
    est = estimate_memory(req, MemoryConstants.from_catalog(cat))
    assert est.notes
    for key, params in est.notes:
        assert t(key, **params) != key
