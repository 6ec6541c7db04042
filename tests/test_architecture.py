"""docs/architecture.md stays true: its table of packages is checked against the import graph.

The table (between the `imports:begin` and `imports:end` markers) gives each package or
top-level module of src/gpuwise its layer, the packages it may import and the I/O libraries it
may import. Imports are read with `ast` from every module, at module level and inside
functions alike (a lazy import is still a dependency); imports under `if TYPE_CHECKING:` are
types only and do not count. A new package needs a row; a new arrow needs a cell.
"""

from __future__ import annotations

import ast
import functools
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
SRC = ROOT / "src" / "gpuwise"
DOC = ROOT / "docs" / "architecture.md"
LAYERS = ("base", "data", "core", "edge", "output", "shell")
"""Lowest first: a package may import its own layer and the layers below it, and a higher
layer only through a module named in its cell (`prices.index`), which must do no I/O."""
IO_LIBS = (
    "subprocess",
    "socket",
    "signal",
    "threading",
    "concurrent.futures",
    "ctypes",
    "psutil",
    "pynvml",
    "torch",
    "sqlite3",
    "urllib.request",
    "urllib.error",
    "http.client",
    "http.server",
    "socketserver",
    "prometheus_client",
    "matplotlib",
    "platformdirs",
)
"""Libraries that reach the machine, the network or a process (file reads are not counted:
docs/architecture.md says where those live)."""
_NONE = ("", "—", "-")


def _unit(path: Path) -> str:
    """The table row a module belongs to: its package, or the top-level module's name."""
    rel = path.relative_to(SRC).with_suffix("").parts
    if len(rel) > 1:
        return rel[0]
    return "gpuwise" if rel[0] == "__init__" else rel[0]


def _type_only(tree: ast.AST) -> set[int]:
    ids: set[int] = set()
    for node in ast.walk(tree):
        test = getattr(node, "test", None)
        if isinstance(node, ast.If) and (
            (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
            or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")
        ):
            ids.update(id(inner) for inner in ast.walk(node))
    return ids


def _imported(path: Path) -> list[str]:
    """Dotted names a module imports ("gpuwise.prices.index.build_index", "subprocess")."""
    package = ".".join(("gpuwise", *path.relative_to(SRC).with_suffix("").parts[:-1]))
    return _imported_text(path.read_text(encoding="utf-8"), package)


def _imported_text(text: str, package: str) -> list[str]:
    """Dotted names imported by `text` (a module of `package`), types-only imports excepted."""
    tree = ast.parse(text)
    skip = _type_only(tree)
    out: list[str] = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([base] if base else [])])
            if base == "gpuwise" and all(a.name == "__version__" for a in node.names):
                continue  # the version string: gpuwise/__init__.py imports nothing eagerly
            gpuwise = base == "gpuwise" or base.startswith("gpuwise.")
            out += [f"{base}.{a.name}" for a in node.names] if gpuwise else [base]
    return out


def _graph() -> tuple[dict[str, set[str]], dict[str, set[str]], dict[str, set[str]]]:
    """(unit → units it imports, unit → modules of other units it imports, unit → I/O libs)."""
    units: dict[str, set[str]] = defaultdict(set)
    modules: dict[str, set[str]] = defaultdict(set)
    io: dict[str, set[str]] = defaultdict(set)
    for path in SRC.rglob("*.py"):
        me = _unit(path)
        units.setdefault(me, set())
        for name in _imported(path):
            if name.startswith("gpuwise."):
                target = name.split(".")[1]
                if target != me:
                    units[me].add(target)
                    modules[me].add(".".join(name.split(".")[1:3]))
            else:
                io[me] |= {lib for lib in IO_LIBS if name == lib or name.startswith(lib + ".")}
    return units, modules, io


def _table() -> dict[str, tuple[str, set[str], set[str]]]:
    """unit → (layer, may import, I/O libraries) from docs/architecture.md."""
    text = DOC.read_text(encoding="utf-8")
    body = text.split("<!-- imports:begin -->")[1].split("<!-- imports:end -->")[0]
    rows: dict[str, tuple[str, set[str], set[str]]] = {}
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not cells[0].startswith("`"):
            continue
        unit = cells[0].strip("`").rstrip("/")
        words = [{w.strip("` ") for w in c.split(",") if w.strip("` ") not in _NONE} for c in cells]
        rows[unit] = (cells[1], words[2], words[3])
    return rows


TABLE = _table()
UNIT_NAMES = sorted({_unit(path) for path in SRC.rglob("*.py")})
"""The units, for the parametrized tests (the import graph is read when a test first needs it,
not while every worker collects the suite)."""


@functools.cache
def _graph_once() -> tuple[dict[str, set[str]], dict[str, set[str]], dict[str, set[str]]]:
    return _graph()


def test_every_package_has_a_row_and_every_row_a_package() -> None:
    units, _, _ = _graph_once()
    assert sorted(units) == UNIT_NAMES
    missing = sorted(set(units) - set(TABLE))
    assert not missing, f"add a row to docs/architecture.md for {missing}"
    assert sorted(set(TABLE) - set(units)) == []
    assert {layer for layer, _, _ in TABLE.values()} <= set(LAYERS)


@pytest.mark.parametrize("unit", UNIT_NAMES)
def test_imports_stay_inside_the_declared_arrows(unit: str) -> None:
    units, modules, _ = _graph_once()
    layer, allowed, _ = TABLE[unit]
    for target in sorted(units[unit]):
        named = {m for m in modules[unit] if m.split(".")[0] == target}
        if target in allowed:
            assert LAYERS.index(TABLE[target][0]) <= LAYERS.index(layer), (
                f"{unit} ({layer}) may not import {target} ({TABLE[target][0]}) as a whole: "
                "name the module, e.g. `prices.index`"
            )
            continue
        undeclared = sorted(named - allowed)
        assert not undeclared, f"{unit} imports {undeclared}: not in docs/architecture.md"


@pytest.mark.parametrize("unit", UNIT_NAMES)
def test_io_libraries_only_where_the_table_says(unit: str) -> None:
    _, _, libs = _graph_once()
    _, _, io = TABLE[unit]
    assert sorted(libs[unit] - io) == [], f"{unit} imports I/O libraries the table does not list"
    if TABLE[unit][0] in ("base", "data", "core"):
        assert libs[unit] <= {"platformdirs"}, f"{unit} is {TABLE[unit][0]}: no I/O libraries"


def test_modules_named_across_the_layers_do_no_io() -> None:
    """A lower layer may reach up only to a pure module (the offer query in prices/)."""
    for unit, (_, allowed, _) in TABLE.items():
        for name in (a for a in allowed if "." in a):
            path = SRC.joinpath(*name.split(".")).with_suffix(".py")
            libs = {
                lib
                for imported in _imported(path)
                for lib in IO_LIBS
                if imported == lib or imported.startswith(lib + ".")
            }
            assert libs == set(), f"{unit} may import {name}, which uses {sorted(libs)}"


def test_no_cycles_between_packages() -> None:
    units, _, _ = _graph_once()
    seen: dict[str, int] = {}

    def visit(unit: str, path: list[str]) -> None:
        seen[unit] = 1
        for target in units[unit]:
            assert seen.get(target) != 1, f"cycle: {' → '.join([*path, unit, target])}"
            if target not in seen:
                visit(target, [*path, unit])
        seen[unit] = 2

    for unit in sorted(units):
        if unit not in seen:
            visit(unit, [])


KNOWN_MODULE_CYCLES: tuple[frozenset[str], ...] = ()
"""Module cycles still to untangle (docs/architecture.md, *Known debts*); none may be added."""


def _module_graph() -> dict[str, set[str]]:
    """module → the gpuwise modules it imports (a name imported from a module counts as that
    module; `from gpuwise.cost import fx` counts as the submodule `gpuwise.cost.fx`)."""
    modules: dict[str, Path] = {}
    for path in SRC.rglob("*.py"):
        name = ".".join(("gpuwise", *path.relative_to(SRC).with_suffix("").parts))
        modules[name.removesuffix(".__init__")] = path
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for imported in _imported(path):
            parts = imported.split(".")
            for k in range(len(parts), 1, -1):
                target = ".".join(parts[:k])
                if target in modules:
                    if target != name:
                        graph[name].add(target)
                    break
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected groups of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group: set[str] = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(frozenset(group))
    return found


def test_no_cycles_between_modules_inside_a_package() -> None:
    """Review 3 found advise/plan ↔ fired/fixes importing each other inside functions; a
    module cycle inside a package hides the order in which things are built."""
    new = [sorted(c) for c in _cycles(_module_graph()) if c not in KNOWN_MODULE_CYCLES]
    assert new == [], f"module cycles: {new}"


def test_the_cycle_finder_finds_a_cycle_through_three_modules() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [frozenset({"a", "b", "c"})]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_the_checker_sees_lazy_imports_and_skips_type_only_ones() -> None:
    """A lazy import (inside a function) hid the package cycles review 3 found; a
    TYPE_CHECKING import is a type, not a dependency."""
    text = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import subprocess\n    from gpuwise.cost import fx\n"
        "def f():\n    from gpuwise.prices.index import build_index\n    from . import raw\n"
    )
    names = _imported_text(text, "gpuwise.catalog")
    assert "gpuwise.prices.index.build_index" in names and "gpuwise.catalog.raw" in names
    assert "subprocess" not in names and not any(n.startswith("gpuwise.cost") for n in names)
