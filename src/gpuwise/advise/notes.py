"""Plan-wide notes (the ⓘ lines): what owned machines are charged for power, how an embedder
or reranker was sized, domestic rentals with no price, configurations left out as no faster.
Kept apart from the search in advise.plan, so each note says one thing the user can change."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpuwise.advise.candidates import Candidate, CandidateSet
from gpuwise.advise.cluster_quotes import rdma_cluster_note
from gpuwise.advise.considered import considered_notes
from gpuwise.advise.domestic import domestic_rental_note
from gpuwise.advise.evaluate import Fired, Option
from gpuwise.advise.failover import cold_standby_note
from gpuwise.advise.faster_note import faster_for_more_note
from gpuwise.advise.labels import candidate_words
from gpuwise.advise.over_budget import over_budget_note
from gpuwise.advise.overhead import rental_overhead_note
from gpuwise.advise.scenario import Scenario
from gpuwise.advise.spot_note import no_spot_price_note, spot_slack_note
from gpuwise.advise.workload import reading_floor, workload_model
from gpuwise.catalog import Catalog
from gpuwise.cost.power import assumption
from gpuwise.cost.resolve import Context
from gpuwise.estimate.pooling import pools

if TYPE_CHECKING:
    from gpuwise.advise.outcome import Plan


def plan_notes(cat: Catalog, plan: Plan, ctx: Context, cs: CandidateSet) -> list[Fired]:
    """The ⓘ lines after the buyer's: power of owned machines, how an embedder was sized,
    unpriced domestic rentals and RDMA clusters, configurations left out for being no faster."""
    s = plan.scenario
    out: list[Fired] = []
    if any(o.candidate.kind == "own" for o in (*plan.options, *plan.infeasible, *plan.unchecked)):
        out.append(power_assumption(cat, s, ctx))
        out += hardware_index_note(cat, s, ctx)
    out += pooling_note(cat, s, plan.options or plan.infeasible)
    out += pooling_capacity_note(cat, s, plan.options)
    out += answer_time_note(cat, s, plan.options)
    out += first_token_note(cat, s, plan.options)
    out += target_below_reading_note(cat, s)
    out += domestic_rental_note(cat, plan)
    out += rdma_cluster_note(cat, plan)
    out += rental_overhead_note(s, any(o.candidate.kind == "rent" for o in plan.options))
    out += over_budget_note(plan)
    out += faster_for_more_note(cat, plan)
    out += no_spot_price_note(cat, plan)
    out += spot_slack_note(plan, assumption(cat, "price_uncertainty_fraction").value)
    out += images_not_counted_note(cat, s)
    out += cold_standby_note(plan.options)
    out += companions_note(cat, plan)
    out += considered_notes(cat, plan, cs)
    out += owned_machines_note(cat, s)
    out += refused_cards_note(cat, plan)
    if cs.dropped.get("more-devices-slower"):
        n = cs.dropped["more-devices-slower"]
        examples = cs.example_candidates.get("more-devices-slower", [])
        out.append(("plan.note_more_devices_slower", {"n": n, **examples_in_words(examples)}))
    return out


REFUSED_SHOWN = 4
"""Cards named in the note on cards no format runs on (the rest are in --json's refused)."""


def refused_cards_note(cat: Catalog, plan: Plan) -> list[Fired]:
    """Cards the engine runs no format of the model on, each with its first reason, so that a
    card the user expected is not left out without a word (blind w49-01). Only where the plan
    has no option on them at all."""
    refused = [g for g in plan.refused if g in plan.refused_why]
    # the model's own kernels missing first: a fact of this model, not of every plan on the card
    model_first = sorted(refused, key=lambda g: plan.refused_why[g].via != "model")
    shown = model_first[:REFUSED_SHOWN]
    if not shown:
        return []
    names = {g: cat.gpu(g).name for g in shown}

    def named(g: str, lang: str, left: str, right: str) -> str:
        verdict = plan.refused_why[g]
        why = _first_clause(verdict.note_zh if lang == "zh" else verdict.note_en)
        return f"{names[g]}{left}{why}{right}" if why else names[g]

    en = "; ".join(named(g, "en", " (", ")") for g in shown)
    zh = "；".join(named(g, "zh", "（", "）") for g in shown)
    return [("plan.note_cards_refused", {"cards_en": en, "cards_zh": zh})]


def _first_clause(text: str) -> str:
    """A catalog note's first clause: what refuses the card, without the sourcing after it."""
    for stop in (". ", "; ", "。", "；"):
        text = text.split(stop)[0]
    return text.rstrip(".。 ")


def owned_machines_note(cat: Catalog, s: Scenario) -> list[Fired]:
    """Owned cards more than one host takes, with no `per_machine`: the plan took them to sit
    `max_per_host` to a machine and says so (blind w49-05: two 4-card servers were read as
    four 2-card desktops, and the only layout that served the load was never sized)."""
    out: list[Fired] = []
    for owned in s.owns:
        gpu = cat.gpu(owned.gpu)
        per_host = gpu.max_per_host
        if owned.per_machine is None and per_host and owned.count > per_host:
            params = {"count": owned.count, "gpu": gpu.name, "per_host": per_host}
            out.append(("plan.note_owned_per_machine", {**params, "id": gpu.id}))
    return out


def examples_in_words(examples: list[Candidate]) -> dict[str, str]:
    """A few configurations named in words, in en and zh ('examples_en', 'examples_zh')."""
    from gpuwise.i18n import LANGS, t

    return {
        f"examples_{lang}": t("plan.examples_sep", lang=lang).join(
            candidate_words(c, lang) for c in examples
        )
        for lang in LANGS
    }


def target_below_reading_note(cat: Catalog, s: Scenario) -> list[Fired]:
    """A speed target lower than reading speed for its concurrent requests: most likely a
    per-request figure written where the total goes; the floor is held as well, and said."""

    target, floor = s.workload.target_tokens_per_s, reading_floor(cat, s)
    if s.workload.target_tokens_per_s_per_request:  # said per request: not a total mistaken
        return []
    if not target or not floor or target >= floor:
        return []
    requests = s.workload.concurrency if s.workload.kind == "serve" else 1
    params = {"target": target, "each": target / requests, "floor": floor, "n": requests}
    return [("plan.note_target_below_reading", params)]


def pooling_note(cat: Catalog, s: Scenario, options: list[Option]) -> list[Fired]:
    """How an embedder or reranker was sized and timed (estimate.pooling), said once."""
    from gpuwise.advise.workload import plan_defaults, workload_model

    model = workload_model(cat, s)[0]
    if not pools(model) or s.workload.kind == "train":
        return []
    w = s.workload
    prompt = options[0].sized.prompt_tokens if options else None
    prompt = prompt or min(w.prompt_tokens or plan_defaults(cat).serve_prompt_tokens, w.context)
    concurrency = w.concurrency if w.kind == "serve" else 1
    task = {"embed": ("embedding", "向量嵌入"), "rerank": ("reranking", "重排序")}[model.task]
    params = {"model": model.name, "task_en": task[0], "task_zh": task[1]}
    return [("plan.note_pooling", {**params, "concurrency": concurrency, "prompt": prompt})]


def pooling_capacity_note(cat: Catalog, s: Scenario, options: list[Option]) -> list[Fired]:
    """An embedder or reranker served with no load given: nothing was checked but that the
    model fits, so the plan says what load it assumed (the scenario's inputs in flight, batched)
    and what the first option carries: input tokens/s (the slow end of its band), inputs/s and
    tokens a day at the scenario's hours, and how long one batch takes (inputs × tokens ÷
    tokens/s, the wait of every input in it). An expert sizes an embedder from that load and
    that latency; the user is asked for target_tokens_per_s to size for theirs."""
    from gpuwise.advise.margin import slow_tokens_per_s
    from gpuwise.advise.workload import workload_model
    from gpuwise.i18n import LANGS, t

    w = s.workload
    if w.kind != "serve" or w.target_tokens_per_s or w.batch_requests() or not options:
        return []
    if not pools(workload_model(cat, s)[0]):
        return []
    o = options[0]
    prompt = o.sized.prompt_tokens
    if not o.sized.speed_known or not o.sized.tokens_per_s or not prompt:
        return []
    tps, low = o.sized.tokens_per_s, slow_tokens_per_s(o.sized)
    params: dict[str, Any] = {
        "n": w.concurrency,
        "prompt": prompt,
        "tps": tps,
        "low": low,
        "inputs_per_s": low / prompt,
        "per_day_en": low * 3600 * s.hours_per_day / 1e6,  # en: millions
        "per_day_zh": low * 3600 * s.hours_per_day / 1e8,  # zh: 亿 (10^8)
        "hours": s.hours_per_day,
        "batch_s": w.concurrency * prompt / low,
    }
    banded = low < tps * 0.995  # no band data: the figure is its own slow end, said once
    for lang in LANGS:
        params[f"band_{lang}"] = t("plan.pooling_band", lang=lang, low=low) if banded else ""
    return [("plan.note_pooling_capacity", params)]


def answer_time_note(cat: Catalog, s: Scenario, options: list[Option]) -> list[Fired]:
    """How long one whole answer takes on the first option, where that is longer than the
    catalog's `long_answer_seconds` at the central estimate: gen_tokens ÷ each request's share
    of the tokens/s (and at the slow end of the band). A reasoning model's hidden thinking is
    not read as it streams, so a 16k-token answer at 24 tokens/s per user is an 11-minute wait
    (blind w12-01) that the reading-speed check alone never shows."""
    from gpuwise.advise.margin import slow_tokens_per_s
    from gpuwise.advise.workload import plan_value

    w = s.workload
    if w.kind != "serve" or w.batch_requests() or not options:
        return []
    o = options[0]
    if not o.sized.speed_known or not o.sized.tokens_per_s or o.sized.pooling:
        return []
    kept = o.beside.sized if o.beside is not None else None  # owned cards serving beside it
    total = o.sized.tokens_per_s + (kept.tokens_per_s if kept else 0.0)
    slow_total = slow_tokens_per_s(o.sized) + (slow_tokens_per_s(kept) if kept else 0.0)
    per_request = total / max(w.concurrency, 1)  # blind w39-03: the added cards' share alone
    slow = slow_total / max(w.concurrency, 1)
    seconds, slow_seconds = w.gen_tokens / per_request, w.gen_tokens / slow
    if seconds < plan_value(cat, "long_answer_seconds"):
        return []
    params = {
        "gen": w.gen_tokens,
        "per_request": per_request,
        "minutes": seconds / 60,
        "slow_minutes": slow_seconds / 60,
    }
    return [("plan.note_answer_time", params)]


def first_token_note(cat: Catalog, s: Scenario, options: list[Option]) -> list[Fired]:
    """How long the first token of one long prompt takes on the first option, before any
    queue, where the slow end of its band passes the catalog's `first_token_wait_seconds` (the
    attention limit): an 80k-token RAG prompt is a 10-20 s wait that the tokens/s of the answer
    never shows (blind w26-04). The estimate's own time to first token (one prefill) and its
    band's slow end."""
    from gpuwise.advise.workload import plan_value

    w = s.workload
    if w.kind == "local" and options:
        full = full_context_note(cat, s, options[0])
        if full or not w.prompt_tokens:  # a stated long prompt is said as a service's is
            return full  # (blind w49-04: a 60k-token local prompt's wait was never shown)
    if w.kind not in ("serve", "local") or w.batch_requests() or not options:
        return []
    speed = options[0].sized.speed
    ttft = speed.time_to_first_token_s
    if not options[0].sized.speed_known or not ttft:
        return []
    band = (speed.band or {}).get("time_to_first_token_s")
    slow = max(band) if band else ttft
    limit = plan_value(cat, "first_token_wait_seconds")
    if slow < limit:
        return []
    prompt = options[0].sized.prompt_tokens or w.prompt_tokens or 0  # the prompt it sized
    params = {"prompt": prompt, "seconds": ttft, "slow_seconds": slow, "limit": limit}
    return [("plan.note_first_token", params)]


def full_context_note(cat: Catalog, s: Scenario, first: Option) -> list[Fired]:
    """Local use with a long context and no prompt length given (a coding assistant reading
    files): the speeds are for short chat prompts, so say how long a prompt that fills the
    context waits for its first token on the first option, where that passes the attention
    limit (blind w30-05: a 32k coding context on a base Mac mini, minutes, unsaid)."""
    from gpuwise.advise.workload import plan_value

    wait = first.sized.full_context_first_token_s
    if wait is None or not first.sized.speed_known:
        return []
    seconds, slow = wait
    limit = plan_value(cat, "first_token_wait_seconds")
    if slow < limit:
        return []
    context = s.workload.context
    return [
        (
            "plan.note_full_context",
            {"context": context, "seconds": seconds, "slow_seconds": slow, "limit": limit},
        )
    ]


def power_assumption(cat: Catalog, s: Scenario, ctx: Context) -> tuple[str, dict[str, Any]]:
    """What owned machines are charged for power: the tariff of whoever pays, where they sit
    (PUE), and the share of TDP a busy card draws; the plan says it, so it can be changed."""
    from gpuwise.cost.power import busy_fraction, default_tariff, site_pue
    from gpuwise.i18n import t

    region = None if s.region.strip().lower() in ("any", "") else s.region
    key = s.tariff or default_tariff(cat, ctx.currency, s.payer(), region)
    preset = next((x for x in cat.extra("tariff") if x.id == key.lower()), None)
    pue, site = site_pue(cat, s.owned_site(), None)
    params: dict[str, Any] = {"pue": pue, "pct": busy_fraction(cat, s.workload.kind)}
    for lang in ("en", "zh"):
        name = getattr(preset, f"name_{lang}") if preset else f"{key}/kWh"
        params[f"tariff_{lang}"] = name
        params[f"who_{lang}"] = t(f"plan.entity_{s.entity}", lang=lang)
        params[f"site_{lang}"] = t(f"site.{site}", lang=lang)
    return ("plan.assume_power", params)


def images_not_counted_note(cat: Catalog, s: Scenario) -> list[Fired]:
    """A vision model served with no `image_tokens`: its vision encoder's work is not counted,
    which the plan says rather than time text alone as if it were the job (blind w56-04: the
    invoices' images were in the prompt count, the encoder in nothing)."""
    w = s.workload
    if w.kind == "train" or w.image_tokens:
        return []
    model = workload_model(cat, s)[0]
    if model.vision is None:
        return []
    return [("plan.note_images_not_counted", {"model": model.name})]


def hardware_index_note(cat: Catalog, s: Scenario, ctx: Context) -> list[Fired]:
    """Hardware bought in a country priced only abroad: the index its world prices were
    multiplied by, and where it comes from (cost/market.py)."""
    from gpuwise.cost.market import hardware_index

    region = None if s.region.strip().lower() in ("any", "") else s.region
    index = hardware_index(cat, region, ctx.currency)
    if index is None:
        return []
    params = {"factor": index.factor, "region_en": index.name_en, "region_zh": index.name_zh}
    return [("plan.note_hardware_index", params | {"source": index.source})]


def companions_note(cat: Catalog, plan: Plan) -> list[Fired]:
    """Models served beside the main one, by their names: the memory reserved for them, and
    the share of the first option's device time their stated load takes (or that their compute
    is not counted, where no load is stated: advise/companions.py)."""
    from gpuwise.catalog.reading import read_model_name

    names = [read_model_name(cat, n).model.name for n in plan.scenario.workload.companion_names()]
    shown = plan.options or plan.infeasible
    if not names or not shown:
        return []
    gib = shown[0].sized.companion_bytes / 2**30
    params = {"names_en": ", ".join(names), "names_zh": "、".join(names), "gib": gib}
    if not any(c.tokens_per_s for c in plan.scenario.workload.companions):
        return [("plan.note_companions", params)]
    return [("plan.note_companions_load", {**params, "share": shown[0].sized.companion_share})]
