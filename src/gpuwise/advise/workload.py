"""What a scenario's workload stands for: its model and the request sizes it may leave out
(shared by the search and the plan notes, so neither imports the other)."""

from __future__ import annotations

from gpuwise.advise.attempts import Defaults
from gpuwise.advise.scenario import Scenario
from gpuwise.catalog import Catalog
from gpuwise.catalog.reading import read_model_name
from gpuwise.catalog.schema import LlmModel


def plan_defaults(cat: Catalog) -> Defaults:
    """Request sizes a scenario may leave out, from the catalog's planner assumptions."""
    values = {a.id: a.value for a in cat.extra("plan_assumption")}
    return Defaults(
        serve_prompt_tokens=int(values["serve_prompt_tokens"]),
        chat_turn_prompt_tokens=int(values["chat_turn_prompt_tokens"]),
    )


def workload_model(cat: Catalog, s: Scenario) -> tuple[LlmModel, str | None]:
    """The model and, for an Ollama tag, the file format the tag names (catalog.reading: the
    one reading `estimate`, `fit` and `record` use too)."""
    reading = read_model_name(cat, s.workload.model)
    return reading.model, reading.tag_quant
