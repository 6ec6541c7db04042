"""Reading the exported files back: shell commands as words, flags as a mapping, `bash -n`."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest


def command_words(script: str, start: str) -> list[str]:
    """The words of the (continued) command line of `script` that begins with `start`."""
    joined = script.replace("\\\n", " ")
    for line in joined.splitlines():
        if line.lstrip().startswith("#"):
            continue
        words = shlex.split(line.strip())
        if words[:1] == ["exec"]:
            words = words[1:]
        if words[: len(start.split())] == start.split():
            return words
    raise AssertionError(f"no `{start}` line in:\n{script}")


def flag_values(words: list[str]) -> dict[str, str | None]:
    """--flag value pairs (a flag followed by another flag is a switch: None)."""
    out: dict[str, str | None] = {}
    for i, word in enumerate(words):
        if word.startswith("--"):
            nxt = words[i + 1] if i + 1 < len(words) else None
            out[word] = None if nxt is None or nxt.startswith("--") else nxt
    return out


def bash_syntax_ok(text: str, tmp_path: Path) -> None:
    """`bash -n` accepts the script."""
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("no bash")
    path = tmp_path / "script.sh"
    path.write_text(text, encoding="utf-8")
    res = subprocess.run([bash, "-n", str(path)], capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stderr
