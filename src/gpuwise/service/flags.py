"""Flags that contradict each other, or that a command would ignore: said, never swallowed.

A contradiction (two sources for one scenario) is a UserError (exit 2); a flag that has no effect
is one `note:` line on stderr, so the answer on stdout (and --json) stays clean.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from gpuwise.errors import UserError
from gpuwise.i18n import t


def note(key: str, **params: Any) -> None:
    """One line on stderr, prefixed in the user's language."""
    sys.stderr.write(f"{t('flags.note')}: {t(key, **params)}\n")


def given(name: str) -> bool:
    """True when the option `name` was typed on the command line (not its default)."""
    import click
    from click.core import ParameterSource

    ctx = click.get_current_context(silent=True)
    return ctx is not None and ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE


def check_plan_sources(scenario: Path | None, persona: str | None, example: bool) -> None:
    """A scenario comes from one place: a file, a --persona or --example."""
    chosen = [
        label
        for label, on in (
            (str(scenario), scenario is not None),
            (f"--persona {persona}", bool(persona)),
            ("--example", example),
        )
        if on
    ]
    if len(chosen) > 1:
        raise UserError("flags.two_scenarios", first=chosen[0], second=chosen[1])


def plan_budget(
    budget: float | None, budget_per: str | None, currency: str | None
) -> dict[str, Any] | None:
    """The `budget` table from flags; `--budget-per` alone only re-labels a file's budget.

    A currency symbol typed with the amount (`--budget ¥3000`) is the budget's currency.
    """
    if budget_per is not None and budget_per not in ("month", "total", "year", "run"):
        raise UserError("flags.bad_budget_per", value=budget_per)
    if budget is None:
        return {"per": budget_per} if budget_per else None
    typed = getattr(budget, "currency", None)
    return {
        "amount": float(budget),
        "per": budget_per or "month",
        "currency": typed or (currency or "CNY").upper(),
    }


def check_budget_complete(data: dict[str, Any], origin: str) -> None:
    """`--budget-per` with no amount anywhere: the flag would be silently dropped."""
    budget = data.get("budget")
    if isinstance(budget, dict) and "amount" not in budget:
        raise UserError("flags.budget_per_alone", file=origin)


def check_prompt(context: int | None, prompt: int | None, gen: int | None) -> None:
    """A prompt (plus what is generated) cannot be longer than the context it runs in."""
    if context is None or prompt is None:
        return
    if prompt > context:
        raise UserError("flags.prompt_beyond_context", prompt=prompt, context=context)
    if gen is not None and prompt + gen > context:
        raise UserError("flags.prompt_gen_beyond_context", prompt=prompt, gen=gen, context=context)


def fit_counts(gpus: int, default: tuple[int, ...]) -> tuple[int, ...]:
    """GPU counts `fit` tries: 1/2/4/8, or exactly the `--gpus N` the user typed."""
    if not given("gpus"):
        return default
    note("flags.fit_gpus", count=gpus)
    return (gpus,)


_PLAN_CHOICES = (("kind", "--workload"), ("mode", "--mode"))
"""Workload fields with a fixed set of values, and the `plan` flag that sets each."""


def check_plan_choices(flags: dict[str, Any]) -> None:
    """A `plan` flag with a value outside its choices is named as the flag, before it is merged
    into the scenario: otherwise the error blamed the scenario ("--persona example: unknown
    framework") and spoke pydantic ("Input should be 'train', 'serve' or 'local")."""
    from typing import Literal, get_args, get_origin

    from gpuwise.advise.scenario import FRAMEWORKS, Workload

    workload = flags.get("workload") or {}
    for key, flag in _PLAN_CHOICES:
        value = workload.get(key)
        annotation = Workload.model_fields[key].annotation
        if value is None or get_origin(annotation) is not Literal:
            continue
        choices = [str(c) for c in get_args(annotation)]
        if value not in choices:
            raise UserError("flags.bad_choice", flag=flag, value=value, choices=", ".join(choices))
    known = sorted(set(FRAMEWORKS))
    for name in flags.get("frameworks") or []:
        if name.lower() not in FRAMEWORKS:
            raise UserError(
                "flags.bad_choice", flag="--framework", value=name, choices=", ".join(known)
            )
