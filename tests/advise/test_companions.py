"""Models served beside the main one (a RAG app's embedder and reranker) reserve their memory
on every device the main model uses; the export lowers the engine's share to leave it
(advise/companions.py; blind w18-01: a RAG stack could not be stated)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from gpuwise.advise.companions import companion_bytes
from gpuwise.advise.plan import make_plan
from gpuwise.advise.report import plan_report
from gpuwise.advise.scenario import parse_scenario
from gpuwise.catalog import load_catalog
from gpuwise.errors import UserError
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.export.serve import memory_share
from gpuwise.export.tables import ExportTables
from gpuwise.export.view import view_of

CAT = load_catalog()
RAG: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "qwen3-14b", "concurrency": 16,
                 "prompt_tokens": 6000, "gen_tokens": 500,
                 "target_tokens_per_s_per_request": 15},
    "months": 24, "hours_per_day": 10, "region": "cn", "entity": "company", "currency": "CNY",
}  # fmt: skip
BESIDE = ["qwen3-embedding-0.6b", "qwen3-reranker-0.6b"]


def _plan(companions: list[str]) -> Any:
    data = {**RAG, "workload": {**RAG["workload"], "companions": companions}}
    return make_plan(CAT, parse_scenario(data, "t"), dt.date(2026, 12, 6))


@pytest.fixture(scope="module")
def rag() -> Any:
    return _plan(BESIDE)


def test_each_device_holds_the_companions_too(rag: Any) -> None:
    reserved = companion_bytes(CAT, BESIDE, MemoryConstants.from_catalog(CAT))
    assert 1 * 2**30 < reserved < 8 * 2**30  # two 0.6B models and their runtimes
    report = plan_report(CAT, rag, 5)
    for row in report.options:
        o = rag.options[row.rank - 1]  # the table's rows say their place in the ranking
        assert o.sized.companion_bytes == reserved
        assert row.memory_per_gpu_bytes == o.sized.memory.device_total_bytes + reserved
        assert row.memory_per_gpu_bytes <= row.memory_capacity_bytes
    assert any(k == "plan.note_companions" for k, _ in rag.assumptions)


def test_the_engine_leaves_them_their_room(rag: Any) -> None:
    o = rag.options[0]
    view = view_of(CAT, rag.scenario, o, 1, rag.currency)
    tables = ExportTables.from_catalog(CAT)
    share = memory_share(view, tables, view.engine)
    full = tables.preallocate.get(view.engine, 1.0)
    assert share < full
    assert (
        share * view.memory_capacity_bytes + view.companion_bytes
        <= full * view.memory_capacity_bytes
    )


def test_without_companions_nothing_is_reserved() -> None:
    plan = _plan([])
    assert all(o.sized.companion_bytes == 0 for o in plan.options)
    assert not any(k == "plan.note_companions" for k, _ in plan.assumptions)


def test_an_unknown_companion_is_a_one_line_error() -> None:
    with pytest.raises(UserError) as err:
        _plan(["qwen9-nonexistent"])
    assert "qwen9-nonexistent" in str(err.value)
