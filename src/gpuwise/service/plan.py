"""`plan`: a scenario (a persona, pasted YAML, flags) → the ranked plan and its report."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuwise.errors import UserError

if TYPE_CHECKING:
    from gpuwise.advise.outcome import Plan
    from gpuwise.advise.report_model import PlanReport
    from gpuwise.catalog import Catalog

PERSONAS = ("individual", "small-team", "enterprise-domestic", "cost-extreme")
SCENARIO_MAX_BYTES = 100_000
"""A pasted scenario: a real one is under 1 kB; 100 kB leaves room for comments."""


@dataclass
class PlanResult:
    """The plan (for charts) and its report (the JSON contract of `gpuwise plan`)."""

    catalog: Catalog
    plan: Plan
    report: PlanReport


def persona_path(name: str) -> Path:
    """The packaged scenario of a persona (or `example`); any other name is refused, so no
    caller-supplied text ever becomes a path."""
    if name not in (*PERSONAS, "example"):
        raise UserError("plan.bad_persona", value=name, choices=", ".join(PERSONAS))
    return Path(__file__).parent.parent / "advise" / "personas" / f"{name}.yaml"


def persona_data(name: str) -> dict[str, Any]:
    """A persona's scenario as data."""
    from gpuwise.advise.scenario import _read

    return _read(persona_path(name))


def pasted_scenario(text: str, label: str) -> dict[str, Any]:
    """A scenario pasted as YAML (JSON is YAML too), read by the same guarded loader as a file:
    safe-loaded, duplicate keys, nesting and aliases refused. `label` only names it in
    messages."""
    from gpuwise.userfiles import parse

    size = len(text.encode("utf-8", errors="replace"))
    if size > SCENARIO_MAX_BYTES:
        raise UserError("files.too_big", file=label, size=size, limit=SCENARIO_MAX_BYTES)
    if "\x00" in text:
        raise UserError("files.binary", file=label)
    data = parse(text.removeprefix("\ufeff"), Path(label), "yaml")
    if not isinstance(data, dict):
        raise UserError("plan.not_a_mapping", file=label)
    return data


def plan_from(
    data: dict[str, Any],
    origin: str,
    flags: dict[str, Any],
    fx: float | None,
    top: int,
    today: dt.date | None = None,
) -> PlanResult:
    """Merge flags over the scenario, check it and plan (what `gpuwise plan` does between
    reading its input and printing)."""
    from gpuwise.advise.plan import make_plan
    from gpuwise.advise.report import plan_report
    from gpuwise.advise.scenario import merge, parse_scenario
    from gpuwise.catalog import load_catalog
    from gpuwise.service.flags import check_budget_complete, check_plan_choices

    if top < 1:
        raise UserError("estimate.not_positive", flag="--top", value=top)
    check_plan_choices(flags)
    data = merge(data, {k: v for k, v in flags.items() if v not in (None, {})})
    check_budget_complete(data, origin)
    if not data.get("workload", {}).get("model") or not data["workload"].get("kind"):
        raise UserError("plan.no_workload", file=origin)
    s = parse_scenario(data, origin)
    cat = load_catalog()
    s = host_price_in_currency(cat, s, flags.get("host_price"), fx)
    plan = make_plan(cat, s, today or dt.date.today(), fx)
    return PlanResult(cat, plan, plan_report(cat, plan, top))


def host_price_in_currency(cat: Any, s: Any, typed: Any, fx: float | None) -> Any:
    """`--host-price ¥8000` in a USD plan: converted at the catalog's dated rate (or --fx) and
    said on stderr, never read as 8000 dollars."""
    if getattr(typed, "currency", None) in (None, s.currency):
        return s
    from gpuwise.cost.resolve import make_context
    from gpuwise.service.money import money_in

    ctx = make_context(cat, s.currency, dt.date.today(), fx)
    return s.model_copy(update={"host_price": money_in(ctx, typed, "--host-price")})
