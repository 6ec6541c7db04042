"""Every golden case renders exactly the files under tests/setup/golden/<case>/.

Regenerate after a deliberate change with GPUWISE_UPDATE_GOLDEN=1 and review the diff.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpuwise.setup.render_files import render_all
from gpuwise.setup.tables import SetupTables
from tests.golden import UPDATE_ENV, updating
from tests.setup.cases import CASES
from tests.setup.conftest import make_plan

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize(("name", "stack", "flags"), CASES, ids=[c[0] for c in CASES])
def test_golden(
    name: str, stack: str, flags: dict[str, Any], catalog: Any, tables: SetupTables
) -> None:
    plan = make_plan(catalog, tables, stack, flags)
    assert plan.refusal is None, plan.refusal
    files = render_all(plan)
    folder = GOLDEN / name
    if updating():
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.iterdir():
            old.unlink()
        for file, text in files.items():
            (folder / file).write_text(text, encoding="utf-8")
    if not folder.is_dir():
        pytest.fail(f"golden folder {folder} is missing: create it with {UPDATE_ENV}=1")
    assert sorted(files) == sorted(p.name for p in folder.iterdir())
    for file, text in files.items():
        assert text == (folder / file).read_text(encoding="utf-8"), f"{name}/{file}"
