"""Options shared by `gpuwise estimate` and `gpuwise fit`, turned into a MemoryRequest."""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from typing import Any

import typer

from gpuwise.cli.numbers import number
from gpuwise.i18n import t
from gpuwise.service.job import JobOptions


def _job_options(
    mode: str = typer.Option("inference", "--mode", help=t("est.opt_mode")),
    quant: str = typer.Option(None, "--quant", help=t("est.opt_quant")),
    batch: int = typer.Option(1, "--batch", help=t("est.opt_batch"), click_type=number("batch")),
    seq_len: int = typer.Option(
        2048, "--seq-len", help=t("est.opt_seq_len"), click_type=number("context")
    ),
    context: int = typer.Option(
        None, "--context", help=t("est.opt_context"), click_type=number("context")
    ),
    prompt_tokens: int = typer.Option(
        None, "--prompt-tokens", help=t("est.opt_prompt"), click_type=number("tokens_part")
    ),
    gen_tokens: int = typer.Option(
        None, "--gen-tokens", help=t("est.opt_gen"), click_type=number("tokens_part")
    ),
    kv_dtype: str = typer.Option(None, "--kv-dtype", help=t("est.opt_kv")),
    optimizer: str = typer.Option("adamw", "--optimizer", help=t("est.opt_optimizer")),
    precision: str = typer.Option("mixed-bf16", "--precision", help=t("est.opt_precision")),
    grad_checkpointing: bool = typer.Option(
        True, "--grad-checkpointing/--no-grad-checkpointing", help=t("est.opt_gc")
    ),
    optimizer_in_backward: bool = typer.Option(
        False, "--optimizer-in-backward", help=t("est.opt_in_bwd")
    ),
    attention: str = typer.Option(None, "--attention", help=t("est.opt_attention")),
    lora_rank: int = typer.Option(
        16, "--lora-rank", help=t("est.opt_lora_rank"), click_type=number("lora_rank")
    ),
    lora_targets: str = typer.Option(
        "all-linear", "--lora-targets", help=t("est.opt_lora_targets")
    ),
    train_modules: str = typer.Option("", "--train-modules", help=t("est.opt_train_modules")),
    gpus: int = typer.Option(1, "--gpus", help=t("est.opt_gpus"), click_type=number("gpus")),
    strategy: str = typer.Option("none", "--strategy", help=t("est.opt_strategy")),
    engine: str = typer.Option(None, "--engine", help=t("est.opt_engine")),
    ubatch: int = typer.Option(
        None, "--ubatch", help=t("est.opt_ubatch"), click_type=number("ubatch")
    ),
) -> JobOptions:
    """Every shared option in one place (its signature is grafted onto commands).

    The parameters are JobOptions' fields by name (a positional list could swap two options
    of the same type without a word; a name that does not match fails on the first call)."""
    return JobOptions(**locals())


def with_job_options(func: Callable[..., None]) -> Callable[..., None]:
    """Give a command all job options; it receives them as one `job: JobOptions` argument.

    Typer reads a command's signature, so the wrapper's signature is the command's own
    parameters (without `job`) followed by the shared options.
    """
    hints = {**typing.get_type_hints(_job_options), **typing.get_type_hints(func)}
    own = [
        p.replace(annotation=hints.get(p.name, p.annotation))
        for p in inspect.signature(func).parameters.values()
        if p.name != "job"
    ]
    shared = [
        p.replace(annotation=hints[p.name])
        for p in inspect.signature(_job_options).parameters.values()
    ]
    names = [p.name for p in shared]

    @functools.wraps(func)
    def wrapper(**kwargs: Any) -> None:
        job = _job_options(**{n: kwargs.pop(n) for n in names})
        func(job=job, **kwargs)

    wrapper.__signature__ = inspect.Signature(own + shared)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in own + shared}
    return wrapper
