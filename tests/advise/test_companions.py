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


SEARCH: dict[str, Any] = {
    "workload": {"kind": "serve", "model": "qwen3-embedding-4b", "concurrency": 16,
                 "prompt_tokens": 32, "gen_tokens": 0, "target_tokens_per_s": 9600},
    "months": 18, "hours_per_day": 24, "region": "us", "entity": "company", "currency": "USD",
}  # fmt: skip
"""Blind w45-03: a search API's embedder with a reranker reading 300 queries × 32 candidates
of ~384 tokens a second (3.69M tokens/s) beside it."""


def _search(load: float | None, **more: Any) -> Any:
    reranker: Any = (
        {"model": "bge-reranker-v2-m3", "tokens_per_s": load} if load else "bge-reranker-v2-m3"
    )
    data = {**SEARCH, "workload": {**SEARCH["workload"], "companions": [reranker]}, **more}
    return make_plan(CAT, parse_scenario(data, "t"), dt.date(2026, 12, 6))


def test_a_companions_stated_load_takes_device_time() -> None:
    """Its device time comes out of the main model's throughput, so the plan needs hardware
    for the reranker's load, not the embedder's alone; the note says the share."""
    bare, loaded = _search(None), _search(3.69e6)
    first = loaded.options[0]
    assert 0 < first.sized.companion_share < 1
    assert loaded.options[0].cost.total > 5 * bare.options[0].cost.total
    notes = dict(loaded.assumptions)
    assert notes["plan.note_companions_load"]["share"] == first.sized.companion_share
    for o in loaded.options:  # what is left for the model still meets its target
        assert o.sized.tokens_per_s >= 9600 * (1 - 1e-9)


def test_companions_filling_the_devices_block_the_option() -> None:
    plan = _search(3.69e7, max_gpus=1)  # ten times the load on one device: none carries it
    assert not plan.options
    blocked = [o for o in plan.infeasible if o.sized.companion_share >= 1]
    assert blocked and all(
        any(k == "plan.block_companions_fill" for k, _ in o.blockers) for o in blocked
    )


def test_replicas_share_the_companions_load() -> None:
    """Blind w47-04: a reranker's 240k tokens/s was put whole on every one-GPU replica, so each
    small card 'needed 1.8x its time' and was blocked; N replicas carry 1/N of it each."""
    data = {
        "workload": {"kind": "serve", "model": "qwen3-32b", "concurrency": 64,
                     "prompt_tokens": 3000, "gen_tokens": 300,
                     "target_tokens_per_s_per_request": 20,
                     "companions": [{"model": "qwen3-reranker-0.6b", "tokens_per_s": 240_000}]},
        "months": 24, "hours_per_day": 16, "region": "cn", "currency": "CNY", "entity": "company",
    }  # fmt: skip
    plan = make_plan(CAT, parse_scenario(data, "t"), dt.date(2026, 12, 7))
    replicated = [o for o in plan.options if o.candidate.nodes > 1]
    assert replicated and all(0 < o.sized.companion_share < 1 for o in replicated)
