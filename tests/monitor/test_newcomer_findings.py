"""Regression tests for the record/runs findings of the newcomer review
(../shared/research/review3/newcomer.md, Part 2): state-future-schema, r-import-neg,
r-import-nan, r-import-backwards, r-import-utf16, r-tokens-notaurl."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from gpuwise.monitor.store import RunStore

HEADER = "timestamp, index, name, memory.used [MiB], power.draw [W], utilization.gpu [%]\n"
ROWS = (
    "2026/11/30 10:00:00.000, 0, NVIDIA A100-SXM4-80GB, 1000 MiB, 190.00 W, 50 %\n"
    "2026/11/30 10:00:02.000, 0, NVIDIA A100-SXM4-80GB, 2000 MiB, 200.00 W, 60 %\n"
)


def _files(folder: Path) -> dict[str, bytes]:
    """The database and its write-ahead log (the -shm index is SQLite's shared memory, which any
    reader may touch)."""
    return {p.name: p.read_bytes() for p in folder.iterdir() if not p.name.endswith("-shm")}


@pytest.mark.parametrize("command", [["runs"], ["runs", "show", "1"], ["record", "--", "true"]])
def test_state_future_schema_is_refused_and_left_as_is(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    """A runs DB that says schema_version 99 is neither read nor written as version 1."""
    state = tmp_path / "state"
    monkeypatch.setenv("GPUWISE_STATE_DIR", str(state))
    store = RunStore(state / "runs.sqlite")
    store.close()
    conn = sqlite3.connect(state / "runs.sqlite")
    conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    before = _files(state)
    r = cli(*command)
    assert r.code == 2, (r.out, r.err)
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and "newer gpuwise" in lines[0] and "99" in lines[0], r.err
    assert _files(state) == before


def test_supervise_journal_of_a_newer_schema_is_refused(cli: Any, tmp_path: Path) -> None:
    journal = tmp_path / "j.sqlite3"
    assert cli("supervise", "--journal", str(journal), "--", sys.executable, "-c", "").code == 0
    with sqlite3.connect(journal) as conn:
        conn.execute("UPDATE meta SET value = '7' WHERE key = 'schema'")
    conn.close()
    before = journal.read_bytes()
    for args in (["--report"], ["--", sys.executable, "-c", ""]):
        r = cli("supervise", "--journal", str(journal), *args)
        assert r.code == 2 and "newer gpuwise" in r.err, (args, r.err)
        assert len(r.err.strip().splitlines()) == 1, r.err
    assert journal.read_bytes() == before


@pytest.mark.parametrize(
    ("case", "row", "words"),
    [
        ("r-import-neg", "2026/11/30 10:00:04.000, 0, NVIDIA A100-SXM4-80GB, 2000 MiB, -150.00 W,"
         " 60 %\n", ["line 4", "power.draw", "-150.00 W"]),
        ("r-import-nan", "2026/11/30 10:00:04.000, 0, NVIDIA A100-SXM4-80GB, 2000 MiB, nan,"
         " 60 %\n", ["line 4", "power.draw", "nan"]),
        ("r-import-inf", "2026/11/30 10:00:04.000, 0, NVIDIA A100-SXM4-80GB, inf MiB, 1 W,"
         " 60 %\n", ["line 4", "memory.used"]),
        ("r-import-backwards", "2026/11/30 09:59:00.000, 0, NVIDIA A100-SXM4-80GB, 2000 MiB,"
         " 200 W, 60 %\n", ["line 4", "go back"]),
    ],
)  # fmt: skip
def test_r_import_impossible_rows_are_refused(
    cli: Any, tmp_path: Path, case: str, row: str, words: list[str]
) -> None:
    log = tmp_path / "gpu.csv"
    log.write_text(HEADER + ROWS + row, encoding="utf-8")
    r = cli("record", "--import", str(log), "--interval", "2")
    assert r.code == 2, (case, r.out, r.err)
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and all(w in lines[0] for w in words), (case, r.err)
    assert "No run recorded yet" in cli("runs").out  # nothing was stored


def test_r_import_placeholders_are_missing_not_refused(cli: Any, tmp_path: Path) -> None:
    log = tmp_path / "gpu.csv"
    row = "2026/11/30 10:00:04.000, 0, NVIDIA A100-SXM4-80GB, [N/A], [Not Supported], [N/A]\n"
    log.write_text(HEADER + ROWS + row, encoding="utf-8")
    assert cli("record", "--import", str(log), "--interval", "2", "--json").code == 0


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8-sig"])
def test_r_import_utf16_powershell_log_is_read(cli: Any, tmp_path: Path, encoding: str) -> None:
    """PowerShell's `nvidia-smi … > gpu.csv` writes UTF-16 with a BOM; it reads as UTF-8 does."""
    log = tmp_path / "gpu.csv"
    log.write_bytes((HEADER + ROWS).encode(encoding))
    r = cli("record", "--import", str(log), "--interval", "2", "--json")
    assert r.code == 0, r.err
    data = r.json()
    assert data["samples"] == 2
    assert data["gpus"][0]["peak_used_bytes"] == 2000 * 1024 * 1024
    assert data["run"]["duration_s"] == pytest.approx(4.0)


@pytest.mark.parametrize("value", ["not a url", "http://a b", "ftp://x", "http://"])
def test_r_tokens_notaurl_is_refused_before_running(cli: Any, tmp_path: Path, value: str) -> None:
    ran = tmp_path / "ran"
    code = f"open({str(ran)!r}, 'w').write('x')"
    r = cli("record", "--tokens-from", value, "--", sys.executable, "-c", code)
    assert r.code == 2, (r.out, r.err)
    assert len(r.err.strip().splitlines()) == 1 and "--tokens-from" in r.err
    assert not ran.exists()  # refused before the command ran
