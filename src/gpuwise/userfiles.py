"""Files people give gpuwise (scenarios, catalog overrides) and files it writes for them.

Reading: one size limit, one encoding rule (a BOM wins — UTF-8, UTF-16, UTF-32 — else UTF-8,
else GB18030, which covers GBK and GB2312 as Chinese Windows editors save them), and parsers that
refuse what would otherwise be silently dropped or blow up: duplicate keys (YAML and JSON keep
the last one without a word; TOML already refuses), nesting deeper than any real file, YAML
aliases used as a "billion laughs" or pointing at themselves. Every problem is one UserError line
naming the file (and the line where there is one), never a RecursionError.

Writing: :func:`write_output` refuses to replace an existing file without `--force` (then keeps
backups, see :func:`keep_backup`), says so for a folder or an unwritable place, and writes
atomically (a temporary file in the same folder, then `os.replace`), so an interrupted run never
leaves half a report. Files gpuwise manages itself in the override folder (calibration, quotes)
go through :func:`read_managed` and :func:`replace_managed`: a marker on the first line tells
them from the user's own files, which are never replaced.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpuwise.diag import debug
from gpuwise.errors import UserError

MAX_BYTES = 1_000_000
"""1 MB: a scenario is under 1 kB and the largest catalog file ~25 kB; more is not a config."""
DATA_MAX_BYTES = 16_000_000
"""16 MB for data rather than configuration: a price list to import (a 20 000-row console
export is 1.3 MB) and the catalog files gpuwise writes from such lists and price feeds (the
file of a 20 000-row import is about 6 MB)."""
MAX_DEPTH = 32
"""Nesting levels; the deepest real scenario or catalog file has 4."""
MAX_NODES = 200_000
"""Values after YAML aliases are expanded; a real file has a few hundred. Only YAML can expand
beyond its size: TOML and JSON values are bounded by the file's bytes, so a large price list or
a generated catalog file is not counted against it."""
MAX_ALIASES = 200
"""YAML aliases (`*name`) in one file; anchors are rare in these files and 200 is plenty."""

_BOMS = (
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)

ErrorType = type[UserError]


# ---------------------------------------------------------------- reading


def decode(data: bytes, path: Path, error: ErrorType = UserError) -> tuple[str, str]:
    """Text and the encoding it was read with (BOM, then UTF-8, then GB18030)."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(name), name
            except UnicodeDecodeError as exc:
                raise error("files.bad_encoding", file=str(path), problem=str(exc)) from exc
    if b"\x00" in data:
        raise error("files.binary", file=str(path))
    for name in ("utf-8", "gb18030"):
        try:
            return data.decode(name), name
        except UnicodeDecodeError:
            continue
    raise error("files.bad_encoding", file=str(path), problem="not UTF-8, UTF-16 or GB18030")


def read_text(path: Path, error: ErrorType = UserError, limit: int = MAX_BYTES) -> str:
    """A user's text file, size-checked (`limit` bytes) and decoded; --debug says which
    encoding was used."""
    try:
        if path.is_dir():
            raise error("files.is_dir", file=str(path))
        size = path.stat().st_size
        if size > limit:
            raise error("files.too_big", file=str(path), size=size, limit=limit)
        data = path.read_bytes()
    except OSError as exc:
        raise error("files.unreadable", file=str(path), problem=exc.strerror or str(exc)) from exc
    text, encoding = decode(data, path, error)
    debug(f"read {path} as {encoding}")
    if "\x00" in text:
        raise error("files.binary", file=str(path))
    return text.removeprefix("\ufeff")


def parse(text: str, path: Path, fmt: str, error: ErrorType = UserError) -> Any:
    """Parse TOML, YAML or JSON text; syntax, duplicates, depth and aliases are one-line errors."""
    try:
        if fmt == "toml":
            import tomllib

            data: Any = tomllib.loads(text)
        elif fmt == "json":
            data = json.loads(text, object_pairs_hook=_json_pairs(text, path, error))
        else:
            data = _load_yaml(text, path, error)
    except UserError:
        raise
    except RecursionError as exc:
        raise error("files.too_deep", file=str(path), limit=MAX_DEPTH) from exc
    except Exception as exc:  # each parser has its own error class; all are syntax errors here
        raise error(
            "files.bad_syntax", file=str(path), format=fmt.upper(), problem=_problem(exc)
        ) from exc
    check_shape(data, path, error, MAX_NODES if fmt == "yaml" else None)
    return data


def _problem(exc: Exception) -> str:
    """One line from a parser's error: YAML's problem and line, else the first line."""
    problem, mark = getattr(exc, "problem", None), getattr(exc, "problem_mark", None)
    if problem and mark is not None:
        return f"{problem} (line {mark.line + 1}, column {mark.column + 1})"
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def read_structured(path: Path, error: ErrorType = UserError) -> Any:
    """Read and parse a file by its extension: .toml, .json, else YAML."""
    suffix = path.suffix.lower()
    fmt = "toml" if suffix == ".toml" else "json" if suffix == ".json" else "yaml"
    return parse(read_text(path, error), path, fmt, error)


def check_shape(
    data: Any, path: Path, error: ErrorType = UserError, max_nodes: int | None = MAX_NODES
) -> None:
    """No cycles (a YAML alias inside itself), no deeper than MAX_DEPTH, not absurdly large
    (more than `max_nodes` values; None: not counted)."""
    seen = 0
    stack: list[tuple[Any, int, frozenset[int]]] = [(data, 0, frozenset())]
    while stack:
        value, depth, ancestors = stack.pop()
        seen += 1
        if max_nodes is not None and seen > max_nodes:
            raise error("files.too_large", file=str(path), limit=max_nodes)
        if depth > MAX_DEPTH:
            raise error("files.too_deep", file=str(path), limit=MAX_DEPTH)
        if isinstance(value, dict | list):
            if id(value) in ancestors:
                raise error("files.recursive", file=str(path))
            inner = ancestors | {id(value)}
            children = value.values() if isinstance(value, dict) else value
            stack.extend((child, depth + 1, inner) for child in children)


def _json_pairs(
    text: str, path: Path, error: ErrorType
) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    """An object hook that refuses a key given twice (json keeps the last one silently)."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in items:
            if key in out:
                hits = [m.start() for m in re.finditer(re.escape(json.dumps(key)) + r"\s*:", text)]
                line = text.count("\n", 0, hits[1]) + 1 if len(hits) > 1 else "?"
                raise error("files.duplicate_key", file=str(path), line=line, name=key)
            out[key] = value
        return out

    return pairs


def _load_yaml(text: str, path: Path, error: ErrorType) -> Any:
    """yaml.safe_load with duplicate keys, deep nesting and too many aliases refused."""
    import yaml

    class Loader(yaml.SafeLoader):
        aliases = 0
        depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                self.aliases += 1
                if self.aliases > MAX_ALIASES:
                    raise error("files.too_many_aliases", file=str(path), limit=MAX_ALIASES)
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise error("files.too_deep", file=str(path), limit=MAX_DEPTH)
            try:
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    duplicate = key in seen
                except TypeError:
                    continue  # an unhashable key: construct_mapping reports it
                if duplicate:
                    line = key_node.start_mark.line + 1
                    raise error("files.duplicate_key", file=str(path), line=line, name=key)
                seen.add(key)
            return super().construct_mapping(node, deep)

    return yaml.load(text, Loader=Loader)  # a SafeLoader subclass: no arbitrary objects


# ---------------------------------------------------------------- writing


def check_output(path: Path, force: bool, flag: str) -> None:
    """Before any work: refuse an existing file (without --force), a folder, a missing or
    unwritable folder, so a long computation never ends in a write error."""
    if path.is_dir():
        raise UserError("files.out_is_dir", file=str(path), flag=flag)
    if path.exists() and not force:
        raise UserError("files.out_exists", file=str(path), flag=flag)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise UserError("files.out_no_folder", file=str(path), folder=str(folder))
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UserError("files.out_unwritable", file=str(path), folder=str(folder))


def write_output(path: Path, write: Callable[[Path], object], force: bool, flag: str) -> None:
    """Write through `write(tmp)` into a temporary file beside `path`, then rename it over.

    An existing file (only with --force) is first kept as a backup (:func:`keep_backup`).
    """
    check_output(path, force, flag)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        if path.exists():
            keep_backup(path)
        os.replace(tmp, path)
    except OSError as exc:
        raise UserError(
            "files.cannot_write", file=str(path), problem=exc.strerror or str(exc)
        ) from exc
    finally:
        tmp.unlink(missing_ok=True)


def keep_backup(path: Path) -> Path:
    """Copy `path` before it is replaced: the first time to `<name>.bak`, which is never
    overwritten afterwards (it holds the file as it was before gpuwise first replaced it — often
    the user's own); every later time to `<name>.bak.1`, the version just replaced. Two forced
    runs in a row used to overwrite `.bak` and lose the original (review 3, loss-md-bak2)."""
    first = path.with_name(path.name + ".bak")
    target = first if not first.exists() else path.with_name(path.name + ".bak.1")
    shutil.copy2(path, target)
    return target


def write_text_output(path: Path, text: str, force: bool, flag: str) -> None:
    """:func:`write_output` for a UTF-8 text report."""
    write_output(path, lambda tmp: tmp.write_text(text, encoding="utf-8"), force, flag)


def read_managed(path: Path, marker: str, refuse_key: str) -> str | None:
    """The text of a file gpuwise manages (None when there is none yet). A file of that name
    whose first line lacks `marker` is the user's: UserError(`refuse_key`, path=…), so it is
    never replaced or removed."""
    if not path.exists():
        return None
    text = path.read_text(encoding="utf-8")
    if marker not in (text.splitlines() or [""])[0]:
        raise UserError(refuse_key, path=str(path))
    return text


def replace_managed(path: Path, text: str) -> bool:
    """Write a managed file atomically, keeping the version it replaces as `<name>.bak`; says
    whether there was one. Raises OSError: each caller names the folder to fix in its own
    words."""
    kept = path.exists()
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        if kept:
            path.with_name(path.name + ".bak").write_bytes(path.read_bytes())
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)
    return kept
