"""`--from-plan plan.json --option N`: the GPU and stack of option N of `gpuwise plan --json`.

The plan's engine decides the stack: Transformers-based trainers get the QLoRA stack
(transformers + peft + accelerate + bitsandbytes), vLLM gets vllm, llama.cpp and Ollama get the
Ollama server. Engines setup does not write environments for are refused by name.
"""

from __future__ import annotations

from typing import Any

from gpuwise.errors import UserError

ENGINE_STACKS: dict[str, str] = {
    "transformers": "qlora",
    "transformers-legacy": "qlora",
    "torchtune": "qlora",
    "unsloth": "qlora",
    "vllm": "vllm",
    "llama.cpp": "ollama",
    "ollama": "ollama",
}


def option_of(doc: Any, number: int, path: str) -> tuple[str, str, str]:
    """(GPU catalog id, stack, engine) of option `number` (1-based) of a plan JSON document."""
    options = doc.get("options") if isinstance(doc, dict) else None
    if not isinstance(options, list) or not options:
        raise UserError("setup.plan_no_options", file=path)
    if not 1 <= number <= len(options):
        raise UserError("setup.plan_bad_option", file=path, number=number, count=len(options))
    option = options[number - 1]
    config = option.get("config") if isinstance(option, dict) else None
    gpu = option.get("gpu") if isinstance(option, dict) else None
    engine = config.get("engine") if isinstance(config, dict) else None
    if not isinstance(gpu, str) or not isinstance(engine, str):
        raise UserError("setup.plan_bad_option_shape", file=path, number=number)
    stack = ENGINE_STACKS.get(engine)
    if stack is None:
        known = ", ".join(sorted(ENGINE_STACKS))
        raise UserError("setup.plan_engine", engine=engine, number=number, known=known)
    return gpu, stack, engine
