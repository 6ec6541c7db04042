"""Every public report in tests/doctor/reports.py, replayed as a faked machine and as pasted text:
the first problem names the established cause, no command cannot work where it would run, and
no component is called OK while a finding says it is broken."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.doctor import machine
from tests.doctor.reports import CASES, Case
from tests.doctor.verdicts import check_consistent


def first_problem(report: dict[str, Any]) -> dict[str, Any]:
    problems: list[dict[str, Any]] = [
        f for f in report["findings"] if f["level"] in ("error", "warn")
    ]
    assert problems, [f["id"] for f in report["findings"]]
    return problems[0]


def runnable(report: dict[str, Any]) -> list[str]:
    """Every command line a user would run (comments excluded)."""
    return [c for f in report["findings"] for c in f["commands"] if not c.lstrip().startswith("#")]


def check_case(case: Case, report: dict[str, Any], expect: str) -> None:
    first = first_problem(report)
    assert first["id"] == expect, (case.id, [f["id"] for f in report["findings"]])
    cmds = runnable(report)
    for bad in case.forbid:
        assert not any(bad in c for c in cmds), (case.id, bad, cmds)
    assert not any("--upgrade torch" in c for c in cmds), cmds  # never a blind reinstall
    text = json.dumps(first, ensure_ascii=False)
    for needle in case.require:
        assert needle in text, (case.id, needle, first)
    check_consistent(report)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_pasted_report(case: Case, cli: Any) -> None:
    res = cli("doctor", "--from", case.paste, "--json")
    assert res.code in (0, 1), res.err
    report = res.json()
    assert report["mode"] == "paste"
    check_case(case, report, case.expect)
    assert report["paste"]["facts_from"], "the report says where its facts came from"


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_faked_machine(case: Case, tmp_path: Path) -> None:
    report = machine.run(tmp_path, case.machine)
    check_case(case, report, case.expect_machine or case.expect)


def test_corpus_is_large_and_cited() -> None:
    assert len(CASES) >= 25
    assert len({c.id for c in CASES}) == len(CASES)
    readme = (Path(__file__).parent.parent / "fixtures" / "README.md").read_text()
    for c in CASES:
        assert c.url.startswith("https://github.com/") and c.cause
        assert Path(c.paste).exists(), c.id
        assert f"{c.id}.txt" in readme and c.url in readme, c.id


def test_pasted_facts_never_come_from_this_machine(cli: Any) -> None:
    """A paste that shows only an Ollama log says nothing about this machine's GPU or Python."""
    paste = CASES[[c.id for c in CASES].index("ollama-8772-gfx1031-unsupported")].paste
    report = cli("doctor", "--from", paste, "--json").json()
    assert set(report["facts"]) == {"ollama"}
    assert "gpu.none" not in [f["id"] for f in report["findings"]]
