"""What a scenario's workload stands for: its model and the request sizes it may leave out
(shared by the search and the plan notes, so neither imports the other)."""

from __future__ import annotations

import math

from gpuwise.advise.attempts import Defaults
from gpuwise.advise.scenario import Scenario
from gpuwise.catalog import Catalog
from gpuwise.catalog.reading import read_model_name
from gpuwise.catalog.schema import LlmModel
from gpuwise.errors import UserError
from gpuwise.estimate.pooling import pools


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


def plan_value(cat: Catalog, name: str) -> float:
    """One of the planner's catalog assumptions (catalog/data/plan.toml)."""
    return float(next(a.value for a in cat.extra("plan_assumption") if a.id == name))


def reading_floor(cat: Catalog, s: Scenario) -> float | None:
    """Tokens/s all of a service's requests need together: each concurrent request at least as
    fast as people read (catalog plan_assumption `min_tokens_per_s_per_request`). It holds
    beside a speed target that is lower than it (a total of 40 tokens/s for 12 developers is
    3 tokens/s each: three blind reviewers wrote a per-user figure there; the plan says so,
    advise/notes.py). An embedder or reranker writes nothing to read, nor does a batch job: none."""
    w = s.workload
    if w.kind == "train" or w.batch_requests() or pools(workload_model(cat, s)[0]):
        return None  # a batch's answers are read later, if at all
    requests = w.concurrency  # local chat shared by several people reads at each one's pace
    return requests * plan_value(cat, "min_tokens_per_s_per_request")


def with_assumed_concurrency(cat: Catalog, s: Scenario) -> tuple[Scenario, int | None]:
    """A service given a total speed target but no concurrency, with the requests in flight
    that target implies: as many as still answer each one at reading speed (target ÷
    `min_tokens_per_s_per_request`), at most the engine's default running batch
    (`assumed_concurrency_cap`, vLLM's max_num_seqs). Sized at one request, a 2,000 tokens/s
    service was judged by single-stream speed and answered with dozens of machines (blind
    w10-03, w10-06). A one-off batch (`samples`) with no concurrency runs as many prompts at
    once as that running batch holds, as vLLM's offline `LLM.generate` does with a list of
    prompts: sized one prompt after another, 20 M samples took 843,906 hours (blind w12-05);
    an embedder's batch too (blind w50-03: 20B tokens of documents sized one at a time).
    Returns the scenario unchanged, and None, where nothing is assumed."""
    w = s.workload
    if w.kind != "serve" or "concurrency" in w.model_fields_set:
        return s, None
    if pools(workload_model(cat, s)[0]) and not w.batch_requests():
        return s, None  # a service of embeddings: the load says its own inputs in flight
    cap = int(plan_value(cat, "assumed_concurrency_cap"))
    if w.batch_requests():  # an offline batch keeps the engine's running batch full
        n = max(1, min(cap, w.batch_requests()))
    elif w.target_tokens_per_s and not w.target_tokens_per_s_per_request:
        # a per-request target says its own requests in flight: the scenario's concurrency
        per_request = plan_value(cat, "min_tokens_per_s_per_request")
        n = max(1, min(cap, math.ceil(w.target_tokens_per_s / per_request)))
    else:
        return s, None
    if n == w.concurrency:
        return s, None
    out = s.model_copy(update={"workload": w.model_copy(update={"concurrency": n})})
    out._running_batch_assumed = bool(w.batch_requests())
    return out, n


def generation_of(cat: Catalog, s: Scenario) -> Scenario:
    """The scenario with at least one generated token: an embedder or reranker given
    `gen_tokens: 0` (it generates nothing, as the plan itself says; blind w44-05 was refused
    it) is sized as one, which its pooled pass ignores; a generating model given 0 is one
    clear line, not a service of no tokens."""
    _check_image_tokens(cat, s)
    if s.workload.gen_tokens or s.workload.kind == "train":
        return s
    model = workload_model(cat, s)[0]
    if not pools(model):
        raise UserError("plan.gen_tokens_zero", model=model.name)
    workload = s.workload.model_copy(update={"gen_tokens": 1})
    return s.model_copy(update={"workload": workload})


def _check_image_tokens(cat: Catalog, s: Scenario) -> None:
    """Image tokens need a model with a vision encoder and fit inside the prompt."""
    w = s.workload
    if not w.image_tokens:
        return
    model = workload_model(cat, s)[0]
    if model.vision is None:
        raise UserError("plan.image_tokens_no_vision", model=model.name)
    if w.prompt_tokens is not None and w.image_tokens > w.prompt_tokens:
        raise UserError(
            "plan.image_tokens_over_prompt", image=w.image_tokens, prompt=w.prompt_tokens
        )


def assume_global_batch(cat: Catalog, s: Scenario) -> int | None:
    """The global batch a full fine-tune or pre-training run is timed at when the scenario sets
    none (catalog plan assumptions: Llama 2's 4M tokens a step for a run over
    `pretraining_min_tokens`, its 64 sequences for fine-tuning), set on the workload; None
    where the scenario sets one or the run trains adapters (their gradients are small, so the
    batch barely changes the time)."""
    w = s.workload
    if w.kind != "train" or w.mode != "full" or "batch" in w.model_fields_set:
        return None
    if w.train_tokens() >= plan_value(cat, "pretraining_min_tokens"):
        batch = round(plan_value(cat, "default_pretrain_batch_tokens") / w.seq_len)
    else:
        batch = int(plan_value(cat, "default_finetune_batch_sequences"))
    w._assumed_batch = max(1, batch)
    return w._assumed_batch
