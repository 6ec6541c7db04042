"""What would make an impossible plan possible, each answer computed by planning again.

A suggestion is a change to the scenario (a `patch` with the scenario's own keys) and what the
plan gives once that change is made: its first option and that option's real total. Nothing is
guessed: a change that does not produce a ranked option is not suggested, a budget is never
quoted below the user's, more GPUs are offered only when the plan with them uses more than the
scenario allows today, and a smaller model only when one of its family runs.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gpuwise.advise.limits import spend_of
from gpuwise.advise.margin import slow_hours, slow_tokens_per_s
from gpuwise.advise.regions import ANY
from gpuwise.advise.scenario import Scenario
from gpuwise.advise.workload import plan_value
from gpuwise.catalog import Catalog
from gpuwise.catalog.schema import LlmModel
from gpuwise.errors import UserError
from gpuwise.i18n import get_lang

if TYPE_CHECKING:
    from gpuwise.advise.outcome import Plan

Fired = tuple[str, dict[str, Any]]
MORE_GPUS = (64, 512)
"""Device limits tried for "allow more GPUs": a few racks, then a cluster (two plans at most)."""
SMALLER_SHARE = 0.95
"""A sibling counts as smaller below this share of the model's parameters: a revision of the
same size (DeepSeek-V3.1 under V3.2) needs the same hardware and fixes nothing."""
SIBLINGS_TRIED = 6
"""Smaller models of the same family and task tried, largest first (one per size)."""


@dataclass(frozen=True)
class Replan:
    """Plans the scenario again with a change (the catalog and date of the first plan)."""

    cat: Catalog
    today: dt.date
    cny_per_usd: float | None
    make_plan: Callable[..., Plan]
    """The planner (advise/plan.py passes its `make_plan`: fixes do not import the planner)."""

    def __call__(self, s: Scenario, patch: dict[str, Any], only_owned: bool = False) -> Plan:
        """The plan of `s` with `patch`; `only_owned`: of the owned hardware alone.

        Remembered per catalog (the last REPLANS_KEPT): the fixes and the owned-beside search
        plan the same changed scenario again and again (the rest of a grown load is the same
        under every budget), and a plan is a pure function of the catalog, the scenario, the
        date and the rate."""
        scenario = apply_patch(s, patch)
        memo: OrderedDict[tuple[object, ...], Plan] = self.cat.derived("replans", OrderedDict)
        set_fields = scenario.model_dump_json(exclude_unset=True)  # a default is no choice
        lang = get_lang()  # a few notes word themselves as the plan is made
        key = (
            scenario.model_dump_json(),
            set_fields,
            self.today,
            self.cny_per_usd,
            only_owned,
            lang,
        )
        if key in memo:
            memo.move_to_end(key)
            return memo[key]
        plan = self.make_plan(
            self.cat, scenario, self.today, self.cny_per_usd, fixes=False, only_owned=only_owned
        )
        memo[key] = plan
        while len(memo) > REPLANS_KEPT:
            memo.popitem(last=False)
        return plan


REPLANS_KEPT = 64
"""Changed scenarios' plans kept per catalog (a few MB; a web server's catalog lives long)."""


def apply_patch(s: Scenario, patch: dict[str, Any]) -> Scenario:
    """The scenario with `patch` applied (`workload` keys nested, as in a scenario file).
    Only the keys the user set are carried over: a default (the frameworks a job runs on) must
    stay a default, or the new plan would read it as the user's choice."""
    data = s.model_dump(exclude_unset=True)
    for key, value in patch.items():
        if key == "workload":
            data["workload"] = {**data.get("workload", {}), **value}
        else:
            data[key] = value
    _drop_derived_total(s, patch, data)
    out = Scenario.model_validate(data)
    # what the first reading assumed stays assumed unless the patch states it (a running batch
    # the engine's memory may cut: sizing._batch_in_memory)
    if "concurrency" not in patch.get("workload", {}):
        out._running_batch_assumed = s.running_batch_assumed()
    return out


def _drop_derived_total(s: Scenario, patch: dict[str, Any], data: dict[str, Any]) -> None:
    """A per-request target the patch changes takes the total it set with it: the total the
    scenario holds is that target x concurrency (Workload._per_request_target), not the
    user's, and kept it would hold the old target (blind w67-05: easing 15 tokens/s per
    request was never suggested, as the derived total still asked for 450)."""
    w, changed = s.workload, patch.get("workload", {})
    if "target_tokens_per_s_per_request" not in changed or "target_tokens_per_s" in changed:
        return
    each = w.target_tokens_per_s_per_request
    total = data.get("workload", {}).get("target_tokens_per_s")
    if each and total is not None and abs(total - each * w.concurrency) <= 1e-6 * total:
        data["workload"].pop("target_tokens_per_s")


def patch_text(patch: dict[str, Any]) -> str:
    """The change as a scenario file would say it: `workload.mode: qlora, max_gpus: 64`."""
    parts = []
    for key, value in patch.items():
        if isinstance(value, dict) and key == "workload":
            parts += [f"workload.{k}: {_yaml(v)}" for k, v in value.items()]
        else:
            parts.append(f"{key}: {_yaml(value)}")
    return ", ".join(parts)


def _yaml(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_yaml(v)}" for k, v in value.items()) + "}"
    return str(value)


def _quote(key: str, patch: dict[str, Any], plan: Plan, **params: Any) -> Fired:
    """A suggestion with the plan it gives: first option, its total, the change to make."""
    from gpuwise.advise.fired import _label, money

    best = plan.options[0]
    return (
        key,
        {
            **params,
            "patch": patch,
            "change": patch_text(patch),
            "option": _label(best),
            "total_value": round(best.cost.total, 2),
            "total": money(best.cost.total, plan.currency),
        },
    )


def _budget(s: Scenario, plan: Plan, replan: Replan) -> list[Fired]:
    relaxed = replan(s, {"budget": None})
    if not relaxed.options or s.budget is None:
        return []
    amount = math.ceil(spend_of(s, relaxed.options[0]))
    if s.budget.currency == plan.currency and amount <= s.budget.amount:
        return []  # another limit blocks too: a budget would not be the fix
    budget = {"amount": amount, "currency": plan.currency, "per": s.budget.per}
    again = replan(s, {"budget": budget})
    if not again.options:
        return []
    from gpuwise.advise.fired import money

    amount_text = money(amount, plan.currency)
    return [_quote("plan.fix_budget", {"budget": budget}, again, amount=amount_text)]


def _deadline(s: Scenario, replan: Replan) -> list[Fired]:
    relaxed = replan(s, {"deadline_days": None})
    timed = [slow_hours(o.sized, o.time_hours) for o in relaxed.options if o.time_hours]
    if not timed:
        return []
    days = math.ceil(min(timed) / 24 * 10) / 10  # the deadline is checked at the band's long end
    again = replan(s, {"deadline_days": days})
    if not again.options:
        return []
    return [_quote("plan.fix_deadline", {"deadline_days": days}, again, days=days)]


def _throughput(s: Scenario, replan: Replan) -> list[Fired]:
    w = s.workload
    each = w.target_tokens_per_s_per_request
    relax: dict[str, Any] = {"target_tokens_per_s_per_request": None} if each else {}
    relaxed = replan(s, {"workload": {"target_tokens_per_s": None, **relax}})
    speeds = [slow_tokens_per_s(o.sized) for o in relaxed.options if o.sized.speed_known]
    if not speeds:
        return []
    if each:  # eased where the user asked: per request (the total is derived from it)
        per = math.floor(max(speeds) / max(1, w.concurrency) * 10) / 10
        if per <= 0 or per >= each:
            return []
        patch: dict[str, Any] = {"workload": {"target_tokens_per_s_per_request": per}}
        again = replan(s, patch)
        params = {"each": per, "tps": per * w.concurrency}
        return [_quote("plan.fix_throughput_each", patch, again, **params)] if again.options else []
    target = math.floor(max(speeds))
    patch = {"workload": {"target_tokens_per_s": target}}
    again = replan(s, patch)
    return [_quote("plan.fix_throughput", patch, again, tps=target)] if again.options else []


def _more_gpus(s: Scenario, replan: Replan) -> list[Fired]:
    for limit in MORE_GPUS:
        if limit <= s.max_gpus:
            continue
        again = replan(s, {"max_gpus": limit})
        if again.options and again.options[0].candidate.count > s.max_gpus:
            n = again.options[0].candidate.count
            patch = {"max_gpus": n}
            exact = replan(s, patch)
            if exact.options:
                return [_quote("plan.fix_more_gpus", patch, exact, n=n, max=s.max_gpus)]
    return []


def smaller_siblings(cat: Catalog, model: LlmModel) -> list[LlmModel]:
    """Smaller models that do the same job, largest first: the same family and task (an
    embedder is never replaced by a chat model), with vision only where the model has it. One
    per parameter count, the closest name (same generation) first, so that 13B, 8B, 7B, 3B
    are each tried in turn: halving the size would skip the 8B after a 13B. A previous
    generation is not offered (_previous_generation)."""
    same_job = [
        m
        for m in cat.models
        if m.family == model.family
        and m.task == model.task
        and m.params_b < model.params_b * SMALLER_SHARE
        and (m.vision is None) == (model.vision is None)
        and not _previous_generation(cat, m, model)
    ]
    ranked = sorted(same_job, key=lambda m: (-m.params_b, -_shared_prefix(m.id, model.id), m.id))
    out: list[LlmModel] = []
    for m in ranked:
        if not out or abs(out[-1].params_b - m.params_b) > 0.05 * m.params_b:
            out.append(m)
    return out


def _previous_generation(cat: Catalog, sibling: LlmModel, model: LlmModel) -> bool:
    """A sibling released well before the model (plan assumption sibling_generation_gap_months):
    a step back a generation (Llama 2 13B for Llama 3.1 70B), which a smaller current model
    beats. Unknown dates keep the sibling."""
    if sibling.release is None or model.release is None:
        return False
    gap_days = plan_value(cat, "sibling_generation_gap_months") * 365.25 / 12
    return (model.release - sibling.release).days > gap_days


def _shared_prefix(a: str, b: str) -> int:
    """Characters two ids share from the start (llama-3.1-8b is nearer llama-3.1-70b)."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _smaller_model(cat: Catalog, s: Scenario, replan: Replan) -> list[Fired]:
    """The largest smaller model of the same family and task that gives a ranked option."""
    from gpuwise.catalog.local import resolve_model

    try:
        model = resolve_model(cat, s.workload.model)
    except UserError:  # a model the catalog cannot read has no siblings
        return []
    for m in smaller_siblings(cat, model)[:SIBLINGS_TRIED]:
        patch = {"workload": {"model": m.id}}
        again = replan(s, patch)
        if again.options:
            return [_quote("plan.fix_smaller_model", patch, again, model=m.id)]
    return []


def _simple(key: str, patch: dict[str, Any]) -> Callable[[Scenario, Replan], list[Fired]]:
    def fix(s: Scenario, replan: Replan) -> list[Fired]:
        again = replan(s, patch)
        return [_quote(key, patch, again)] if again.options else []

    return fix


def adapter_may_replace(cat: Catalog, s: Scenario) -> bool:
    """Whether QLoRA is a fair suggestion in place of the job's training: a fine-tune, not a
    full-parameter run over pre-training volumes of tokens (plan assumption
    adapter_fix_max_train_tokens: an adapter learns far less there)."""
    w = s.workload
    if w.kind != "train" or w.mode == "qlora":
        return False
    limit = plan_value(cat, "adapter_fix_max_train_tokens")
    return w.mode != "full" or w.train_tokens() * w.epochs <= limit


def _relaxations(cat: Catalog, s: Scenario) -> list[Callable[[Scenario, Replan], list[Fired]]]:
    w = s.workload
    out = []
    if adapter_may_replace(cat, s):
        out.append(_simple("plan.fix_qlora", {"workload": {"mode": "qlora"}}))
    if w.kind != "train" and w.quant:
        out.append(_simple("plan.fix_quant", {"workload": {"quant": None}}))
    if not s.data_may_leave:
        out.append(_simple("plan.fix_data_may_leave", {"data_may_leave": True}))
    if s.domestic_only:
        out.append(_simple("plan.fix_domestic", {"domestic_only": False}))
    elif s.data_may_leave and s.region.strip().lower() not in (*ANY, "global"):
        # the hardware or the capacity the job needs may be rented elsewhere (a burst of 64
        # GPUs with a fast network); whether the data may cross the border is the user's call
        out.append(_simple("plan.fix_region", {"region": "any"}))
    return out


def suggest_fixes(cat: Catalog, s: Scenario, plan: Plan, replan: Replan) -> list[Fired]:
    """Changes that give a ranked option, each with the option and total it gives; where no
    single change does, two changes together (advise.fixes.combined_fixes)."""
    from gpuwise.advise.fired import _label
    from gpuwise.advise.reasons import message

    out: list[Fired] = []
    if plan.unchecked:
        first = plan.unchecked[0]
        missing = ", ".join(dict.fromkeys(message(k, p) for k, p in first.unchecked))
        out.append(("plan.fix_unchecked", {"option": _label(first), "missing": missing}))
    single = single_fixes(cat, s, plan, replan)
    return out + (single or combined_fixes(cat, s, replan))


def first_changes(cat: Catalog, s: Scenario) -> list[dict[str, Any]]:
    """Changes that make the job smaller or the hardware bigger, to pair with another fix:
    QLoRA, the next smaller model of the family, a few racks of GPUs."""
    from gpuwise.catalog.local import resolve_model

    w = s.workload
    out: list[dict[str, Any]] = []
    if adapter_may_replace(cat, s):
        out.append({"workload": {"mode": "qlora"}})
    try:
        siblings = smaller_siblings(cat, resolve_model(cat, w.model))
    except UserError:
        siblings = []
    out += [{"workload": {"model": m.id}} for m in siblings[:1]]
    if s.max_gpus < MORE_GPUS[0]:
        out.append({"max_gpus": MORE_GPUS[0]})
    return out


def merge_patches(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """Both changes at once (`workload` keys merged, the second's value wins a clash)."""
    out = {**first, **second}
    if "workload" in first and "workload" in second:
        out["workload"] = {**first["workload"], **second["workload"]}
    return out


def combined_fixes(cat: Catalog, s: Scenario, replan: Replan) -> list[Fired]:
    """Two changes together where no single one gives a ranked option: each first change,
    then the single fixes of the scenario it gives; the pair is planned again from the
    user's scenario, and what that plan gives is what is quoted (at most two pairs)."""
    out: list[Fired] = []
    for first in first_changes(cat, s):
        changed = replan(s, first)
        for _, params in single_fixes(cat, apply_patch(s, first), changed, replan):
            patch = merge_patches(first, params["patch"])
            again = replan(s, patch)
            if again.options:
                out.append(_quote("plan.fix_combined", patch, again))
                break
        if len(out) == 2:
            break
    return out


def single_fixes(cat: Catalog, s: Scenario, plan: Plan, replan: Replan) -> list[Fired]:
    """Each change that alone gives a ranked option."""
    out: list[Fired] = []
    blockers = {key for o in plan.infeasible for key, _ in o.blockers}
    if "plan.block_budget" in blockers:
        out += _budget(s, plan, replan)
    if "plan.block_deadline" in blockers or "plan.block_hours" in blockers:
        out += _deadline(s, replan) if s.deadline_days else []
    if "plan.block_throughput" in blockers:
        out += _throughput(s, replan)
    for fix in _relaxations(cat, s):
        out += fix(s, replan)
    # more devices help where a limit of scale blocks everything; where some option fails the
    # budget alone, the devices allowed already do the job and more of them only cost more
    budget_only = any([k for k, _ in o.blockers] == ["plan.block_budget"] for o in plan.infeasible)
    if not budget_only:
        out += _more_gpus(s, replan)
    out += _smaller_model(cat, s, replan)
    return out
