"""The corpus of bad (and unusual) inputs in corpus.toml: one clear line and exit 2, or exit 0.

Every entry runs the real CLI in-process and checks: the exit code; no traceback and no
"unexpected error"; no raw message key; for exit 2, exactly one line on stderr holding the
entry's words; for exit 0, the entry's words on stdout/stderr; files left as they must be.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import tomllib

from gpuwise.userfiles import DATA_MAX_BYTES


def _load_corpus() -> dict[str, list[Any]]:
    """corpus.toml and every corpus_*.toml beside it (one per review or area), merged."""
    merged: dict[str, list[Any]] = {}
    for path in sorted(Path(__file__).parent.glob("corpus*.toml")):
        for kind, entries in tomllib.loads(path.read_text(encoding="utf-8")).items():
            merged.setdefault(kind, []).extend(entries)
    return merged


CORPUS = _load_corpus()

OVERRIDE_SOURCES = """[sources.my-bench]
url = "https://example.org/my-measurement"
title = "my own card"
retrieved = 2026-11-30
"""
"""Four lines put before every `make = "override"` file (line numbers in words count them)."""

_WORKLOAD = "workload: {kind: train, model: qwen2.5:7b}\n"

MAKERS: dict[str, Any] = {
    "deep_yaml": lambda _: _WORKLOAD + "x: " + "[" * 2000 + "]" * 2000 + "\n",
    "deep_json": lambda _: '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}",
    "deep_toml": lambda _: "a = " + "[" * 5000 + "]" * 5000 + "\n",
    "billion_laughs": lambda _: (
        _WORKLOAD
        + "a: &a [x, x, x, x, x, x, x, x, x]\n"
        + "".join(
            f"{n}: &{n} [{', '.join([f'*{p}'] * 9)}]\n"
            for p, n in zip("abcdefg", "bcdefgh", strict=True)
        )
    ),
    "many_aliases": lambda _: _WORKLOAD + "a: &a 1\nb: [" + ", ".join(["*a"] * 250) + "]\n",
    "big_yaml": lambda _: _WORKLOAD + "# padding\n" * 110_000,
    "big_toml": lambda _: "# padding\n" * (DATA_MAX_BYTES // 10 + 1),
    "override": lambda text: OVERRIDE_SOURCES + text,
}
"""Files too big or too repetitive to write out in the corpus."""

RAW_KEY = re.compile(r"(?<![\w/.-])(units|files|flags|est|estimate|cost|plan|catalog)\.[a-z_]+\b")


def _entries() -> list[Any]:
    out: list[Any] = []
    for n in CORPUS.get("number", []):
        case = {
            "id": f"{n['base'][0]}{n['flag']}={n['value']}",
            "category": "cli-number",
            "args": [*n["base"], n["flag"], n["value"]],
            "exit": 2,
            "words": n["words"],
        }
        out.append(pytest.param(case, id=case["id"]))
    out.extend(pytest.param(c, id=c["id"]) for c in CORPUS.get("case", []))
    return out


def _write(tmp: Path, spec: dict[str, Any]) -> None:
    path = tmp / spec["path"]
    path.parent.mkdir(parents=True, exist_ok=True)
    if spec.get("dir"):
        path.mkdir(parents=True, exist_ok=True)
    elif "hex" in spec:
        path.write_bytes(bytes.fromhex(spec["hex"]))
    else:
        text = spec.get("text", "")
        if "make" in spec:
            text = MAKERS[spec["make"]](text)
        path.write_bytes(text.encode(spec.get("encoding", "utf-8")))


def test_corpus_is_large_and_covers_every_category() -> None:
    entries = _entries()
    categories = {e.values[0]["category"] for e in entries}
    assert len(entries) >= 150, len(entries)
    assert {
        "cli-number",
        "units",
        "flags",
        "scenario-file",
        "override-file",
        "model-file",
        "env",
        "output-path",
    } <= categories
    ids = [e.id for e in entries]
    assert len(ids) == len(set(ids)), "duplicate corpus ids"


@pytest.mark.parametrize("case", _entries())
def test_corpus(case: dict[str, Any], cli: Any, tmp_path: Path, monkeypatch: Any) -> None:
    for spec in case.get("file", []):
        _write(tmp_path, spec)
    before = {p: (tmp_path / p).read_bytes() for p in case.get("unchanged", [])}
    if case.get("fixture"):
        monkeypatch.setenv(
            "GPUWISE_DATA_DIR", str(Path(__file__).parents[1] / "fixtures" / "catalog")
        )
    for name, value in case.get("env", {}).items():
        monkeypatch.setenv(name, value.replace("{tmp}", str(tmp_path)))
    args = [a.replace("{tmp}", str(tmp_path)) for a in case["args"]]
    res = cli(*args)
    shown = (res.code, res.out[-2000:], res.err)
    assert res.code == case["exit"], shown
    both = res.out + res.err
    assert "Traceback" not in both and "unexpected error" not in both, shown
    assert not RAW_KEY.search(res.err), shown
    if case["exit"] == 2:
        lines = res.err.strip().splitlines()
        assert len(lines) == 1, shown
        for word in case.get("words", []):
            assert word in lines[0], (word, lines[0])
    for word in case.get("out", []):
        assert word in res.out, (word, shown)
    for word in case.get("err", []):
        assert word in res.err, (word, shown)
    for word in case.get("absent", []):  # wording a fixed message must no longer use
        assert word not in res.out + res.err, (word, shown)
    for name, data in before.items():
        assert (tmp_path / name).read_bytes() == data, f"{name} was changed"
    for name in case.get("created", []):
        assert (tmp_path / name).exists(), f"{name} was not created"
