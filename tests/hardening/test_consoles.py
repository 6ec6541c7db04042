"""Output on GBK, cp1252 and ASCII consoles (a real child process, as a user's shell runs it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

CASES = [
    # (encoding, args, exit code)
    ("gbk", ("offers", "--gpu", "4090", "--lang", "zh"), 0),
    ("gbk", ("plan", "--example", "--lang", "zh"), 0),
    ("cp1252", ("estimate", "qwen2.5:7b", "--gpu", "4090"), 0),
    ("ascii", ("plan", "--example"), 0),
    ("ascii", ("cost", "--own", "4090", "--card-price", "¥3$"), 2),
    ("ascii", ("gpus", "--lang", "zh"), 0),
    ("cp1252", ("cost", "--own", "4090", "--vs", "aws:g5.xlarge", "--currency", "CNY"), 0),
]


def _run(args: tuple[str, ...], **env: str) -> subprocess.CompletedProcess[bytes]:
    full = {**os.environ, "COLUMNS": "100", **env}
    return subprocess.run(
        [sys.executable, "-m", "gpuwise", *args], env=full, capture_output=True, timeout=120
    )


@pytest.mark.parametrize(("encoding", "args", "code"), CASES, ids=lambda v: str(v))
def test_console_encoding(encoding: str, args: tuple[str, ...], code: int) -> None:
    proc = _run(args, PYTHONIOENCODING=encoding)
    out = proc.stdout.decode(encoding)  # every byte is valid in the console's encoding
    err = proc.stderr.decode(encoding)
    assert proc.returncode == code, err
    assert "UnicodeEncodeError" not in err and "Traceback" not in err, err
    text = out if code == 0 else err
    assert text.strip(), "nothing was printed"
    if encoding != "gbk":
        assert "┌" not in out and "─" not in out  # box drawing became ASCII
    if encoding == "ascii":
        assert all(b < 128 for b in proc.stdout + proc.stderr)
        if code == 2:
            assert "CNY" in err and "--card-price" in err  # ¥ shown as CNY, still readable


def test_locale_chinese_on_ascii_console_falls_back_to_english() -> None:
    proc = _run(("gpus",), PYTHONIOENCODING="ascii", GPUWISE_LANG="zh")
    out = proc.stdout.decode("ascii")
    assert proc.returncode == 0 and "GPUs" in out and "??" not in out


def test_c_locale() -> None:
    proc = _run(("estimate", "qwen2.5:7b", "--gpu", "4090"), LC_ALL="C", LANG="C")
    assert proc.returncode == 0, proc.stderr
    assert b"Traceback" not in proc.stderr


def test_json_on_ascii_console_is_exact() -> None:
    proc = _run(("gpus", "show", "4090", "--json", "--lang", "zh"), PYTHONIOENCODING="ascii")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout.decode("ascii"))  # escaped \\uXXXX, decoded back exactly
    assert data["id"] == "rtx-4090"
