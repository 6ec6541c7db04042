"""Options shared by `gpuwise estimate` and `gpuwise fit`, turned into a MemoryRequest."""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import typer

from gpuwise.cli.numbers import number
from gpuwise.i18n import t


@dataclass
class JobOptions:
    """Raw option values, as typed."""

    mode: str
    quant: str | None
    batch: int
    seq_len: int
    context: int | None
    prompt_tokens: int | None
    gen_tokens: int | None
    kv_dtype: str | None
    optimizer: str
    precision: str
    grad_checkpointing: bool
    optimizer_in_backward: bool
    attention: str | None
    lora_rank: int
    lora_targets: str
    train_modules: str
    gpus: int
    strategy: str
    engine: str | None
    ubatch: int | None = None


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


def build_request(model_name: str, o: JobOptions):  # type: ignore[no-untyped-def]
    """Resolve the model and build the request (prompt + generated tokens set the context)."""
    cat, req, _reading = build_job(model_name, o)
    return cat, req


def reading_note(reading: Any, o: JobOptions) -> dict[str, Any] | None:
    """How the model name was read, as a report note ({key, params}); None for a plain name."""
    note = reading.note(_training(o), o.engine, o.quant)
    return None if note is None else {"key": note[0], "params": note[1]}


def _training(o: JobOptions) -> bool:
    return o.mode.lower() != "inference"


def build_job(model_name: str, o: JobOptions):  # type: ignore[no-untyped-def]
    """The catalog, the request and how the model name was read (catalog.reading: an Ollama tag
    is Ollama's file, in its format, where that file runs — as `plan` reads it)."""
    from gpuwise.catalog import load_catalog
    from gpuwise.catalog.reading import read_model_name
    from gpuwise.errors import UserError
    from gpuwise.estimate.request import MemoryRequest, Mode, parse_modules, parse_targets

    cat = load_catalog()
    reading = read_model_name(cat, model_name)
    model = reading.model
    training = _training(o)
    context = o.context
    for flag, value in (("--prompt-tokens", o.prompt_tokens), ("--gen-tokens", o.gen_tokens)):
        if value is not None and value < 0:
            raise UserError("estimate.not_positive", flag=flag, value=value)
    from gpuwise.cli.flags import check_prompt

    check_prompt(context, o.prompt_tokens, o.gen_tokens)
    if context is None and (o.prompt_tokens or o.gen_tokens):
        context = (o.prompt_tokens or 0) + (o.gen_tokens or 0)
    req = MemoryRequest(
        model=model,
        mode=cast(Mode, o.mode.lower()),
        quant=reading.quant(training, o.engine, o.quant),
        batch=o.batch,
        seq_len=o.seq_len,
        context=context,
        prompt_tokens=o.prompt_tokens,
        kv_dtype=o.kv_dtype,
        optimizer=o.optimizer,
        precision=o.precision,
        grad_checkpointing=o.grad_checkpointing,
        fused_optimizer_step=o.optimizer_in_backward,
        attention=o.attention,
        lora_rank=o.lora_rank,
        lora_targets=parse_targets(o.lora_targets),
        train_modules=parse_modules(o.train_modules),
        gpus=o.gpus,
        strategy=o.strategy.lower(),
        engine=reading.engine(training, o.engine, o.quant),
        ubatch=o.ubatch,
        extra={"gen_tokens": str(o.gen_tokens or "")},
    )
    return cat, req, reading


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
