"""Whether a plan option can be written for a target, and if not, the one-line reason.

An option goes to a target only where the files would run the configuration the plan sized: a
training plan has no `vllm serve` line, a GGUF file sized for Ollama is not what vLLM loads, an
engine whose build for the card's software stack the catalog does not name (vLLM on Ascend
without vLLM Ascend) is refused rather than written with an image that cannot start.
"""

from __future__ import annotations

from gpuwise.errors import UserError
from gpuwise.export.tables import ExportTables
from gpuwise.export.view import ExportView

SERVE_TARGETS = ("vllm", "sglang")
LOCAL_TARGETS = ("ollama",)
TRAIN_TARGETS = ("torchrun", "accelerate", "deepspeed", "llama-factory")
SCHEDULER_TARGETS = ("skypilot", "k8s")
TARGETS = (*SCHEDULER_TARGETS, *SERVE_TARGETS, *LOCAL_TARGETS, *TRAIN_TARGETS)
"""Every `--to` target, schedulers first (the order `--to` lists them)."""

SERVE_ENGINES = ("vllm", "sglang")
GGUF_ENGINES = ("ollama", "llama.cpp")
TRAIN_ENGINES = ("transformers", "transformers-legacy")
"""Engines whose training runs through the Hugging Face Trainer (and hence torchrun, accelerate,
DeepSpeed or LLaMA-Factory, which all drive it); torchtune and Unsloth have their own recipes."""
RUNNABLE = ("yes", "partial")


def check_target(name: str) -> str:
    """A known target name (case and `_` forgiven), else the list."""
    key = name.strip().lower().replace("_", "-")
    key = {"kubernetes": "k8s", "llamafactory": "llama-factory", "sky": "skypilot"}.get(key, key)
    if key not in TARGETS:
        raise UserError("export.unknown_target", value=name, known=", ".join(TARGETS))
    return key


def engine_for(v: ExportView, target: str) -> str:
    """The engine the files run: the target's own for an engine target, else the option's."""
    return target if target in SERVE_TARGETS else v.engine


def check(v: ExportView, t: ExportTables, target: str, format_ok: bool = True) -> None:
    """Refuse (UserError, one line) an option the target cannot run as the plan sized it."""
    if target in SCHEDULER_TARGETS:
        _check_scheduled(v, t, target)
    elif target in SERVE_TARGETS:
        _check_server(v, t, target, format_ok)
    elif target in LOCAL_TARGETS:
        _check_ollama(v, t)
    else:
        _check_training(v, t, target)


def _check_scheduled(v: ExportView, t: ExportTables, target: str) -> None:
    """A scheduler runs the option's own engine: the engine's checks, then the scheduler's."""
    if v.kind == "train":
        _check_training(v, t, "torchrun")
    elif v.engine in SERVE_ENGINES:
        _check_server(v, t, v.engine, True)
    elif v.engine in GGUF_ENGINES:
        _check_ollama(v, t)
    else:
        raise UserError("export.refuse_engine_server", engine=v.engine, number=v.number)
    if target == "k8s" and t.device(v.vendor, v.gpu) is None:
        raise UserError("export.refuse_device", vendor=v.vendor, gpu=v.gpu)
    if target == "skypilot" and t.accelerator(v.gpu, None) is None:
        raise UserError("export.refuse_accelerator", gpu=v.gpu)


def _check_server(v: ExportView, t: ExportTables, engine: str, format_ok: bool) -> None:
    if v.kind == "train":
        raise UserError("export.refuse_training", target=engine, number=v.number)
    if v.engine not in SERVE_ENGINES:
        raise UserError("export.refuse_engine", engine=v.engine, target=engine, number=v.number)
    if v.machines_per_replica > 1:
        raise UserError("export.refuse_spanning", number=v.number, machines=v.machines_per_replica)
    _check_stack(v, t, engine)
    if t.image(engine, v.stack, v.gpu) is None:
        raise UserError("export.refuse_build", engine=engine, stack=v.stack, gpu=v.gpu)
    if not format_ok:
        raise UserError("export.refuse_format", engine=engine, quant=v.quant, gpu=v.gpu)
    if engine != v.engine:
        share = t.preallocate.get(engine, 1.0)
        if v.memory_per_device_bytes > share * v.memory_capacity_bytes:
            raise UserError(
                "export.refuse_memory",
                engine=engine,
                need=round(v.memory_per_device_bytes / 1e9, 1),
                share=round(share * v.memory_capacity_bytes / 1e9, 1),
            )
    if v.hf_repo is None:
        raise UserError("export.refuse_repo", model=v.model_id)


def _check_ollama(v: ExportView, t: ExportTables) -> None:
    if v.kind == "train":
        raise UserError("export.refuse_training", target="ollama", number=v.number)
    if v.engine not in GGUF_ENGINES:
        raise UserError("export.refuse_engine", engine=v.engine, target="ollama", number=v.number)
    _check_stack(v, t, "ollama")
    if v.ollama_tag is None:
        raise UserError("export.refuse_tag", model=v.model_id)


def _check_training(v: ExportView, t: ExportTables, target: str) -> None:
    if v.kind != "train":
        raise UserError("export.refuse_serving", target=target, number=v.number)
    if v.engine not in TRAIN_ENGINES:
        raise UserError("export.refuse_train_engine", engine=v.engine, target=target)
    if target == "deepspeed":
        _check_stack(v, t, "deepspeed")
    if v.hf_repo is None:
        raise UserError("export.refuse_repo", model=v.model_id)


def _check_stack(v: ExportView, t: ExportTables, feature: str) -> None:
    """The framework must run on the card's software stack (the feature matrix)."""
    support, note_en, note_zh = t.feature(v.stack, feature)
    if support not in RUNNABLE:
        raise UserError(
            "export.refuse_stack",
            engine=feature,
            stack=v.stack,
            gpu=v.gpu,
            note_en=f": {note_en}" if note_en else "",
            note_zh=f"：{note_zh}" if note_zh else "",
        )
