"""An estimate's job as typed (flags, API fields): the request the estimator reads."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast


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
    from gpuwise.service.flags import check_prompt

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
