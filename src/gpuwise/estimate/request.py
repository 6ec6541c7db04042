"""What the user asks the memory estimator: the model, the job and how it is run."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from gpuwise.catalog.schema import LlmModel
from gpuwise.errors import UserError

Mode = Literal["inference", "full", "lora", "qlora", "freeze"]
MODES: tuple[Mode, ...] = ("inference", "full", "lora", "qlora", "freeze")
STRATEGIES = (
    "none",
    "ddp",
    "zero1",
    "zero2",
    "zero3",
    "fsdp",
    "hsdp",
    "zero2-offload",
    "zero3-offload",
    "tp",
    "dp-attention",
    "pp",
    "device-map",
)
ATTENTIONS = ("flash", "sdpa", "eager")
LORA_TARGETS = ("q", "k", "v", "o", "gate", "up", "down", "embed", "lm_head")
ALL_LINEAR = ("q", "k", "v", "o", "gate", "up", "down")
DEFAULT_LORA_RANK = 16
"""The adapter rank where none is given: PEFT's and LLaMA-Factory's common default."""
TRAIN_MODULES = ("embed", "lm_head", "norm")


@dataclass(frozen=True)
class MemoryRequest:
    """One estimate's inputs. Defaults follow common recipes (bf16, AdamW, checkpointing)."""

    model: LlmModel
    mode: Mode = "inference"
    quant: str | None = None
    batch: int = 1
    seq_len: int = 2048
    context: int | None = None
    prompt_tokens: int | None = None
    image_tokens: int = 0
    """Of each prompt's tokens, those images become (a vision-language model's encoder runs
    over them first: speed_prefill.prompt_flops)."""
    kv_dtype: str | None = None
    optimizer: str = "adamw"
    precision: str = "mixed-bf16"
    grad_checkpointing: bool = True
    fused_optimizer_step: bool = False
    attention: str | None = None
    lora_rank: int = DEFAULT_LORA_RANK
    lora_targets: tuple[str, ...] = ALL_LINEAR
    train_modules: tuple[str, ...] = ()
    gpus: int = 1
    strategy: str = "none"
    shard_gpus: int | None = None
    """Devices a hybrid-sharded layout (hsdp) shards the model states over: one machine's,
    replicated across machines (PyTorch FSDP HYBRID_SHARD). None: all `gpus`."""
    engine: str | None = None
    fused_loss: bool = False
    """Training: the loss is a fused or vocabulary-parallel cross-entropy (Liger, Unsloth,
    Megatron), which never builds the full fp32 logits: they are counted as the engine's
    chunked cross-entropy is (blind w39-01)."""
    ubatch: int | None = None
    """Tokens per prefill step (llama.cpp -ub); None keeps the engine's default."""
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def training(self) -> bool:
        """True for every mode but inference."""
        return self.mode != "inference"

    def with_(self, **changes: object) -> MemoryRequest:
        """A copy with some inputs changed (used by the fit search)."""
        return replace(self, **changes)  # type: ignore[arg-type]


def parse_targets(text: str) -> tuple[str, ...]:
    """`q,v` or `all-linear` (or `all`) → a tuple of module names; unknown names are errors."""
    parts = [p.strip().lower() for p in text.split(",") if p.strip()]
    out: list[str] = []
    for p in parts:
        if p in ("all-linear", "all_linear", "all"):
            out.extend(ALL_LINEAR)
        elif p in LORA_TARGETS:
            out.append(p)
        else:
            raise UserError("estimate.bad_lora_target", value=p, choices=", ".join(LORA_TARGETS))
    if not out:
        raise UserError("estimate.bad_lora_target", value=text, choices=", ".join(LORA_TARGETS))
    return tuple(dict.fromkeys(out))


def parse_modules(text: str) -> tuple[str, ...]:
    """`embed,lm_head` → modules trained in full beside the adapters."""
    parts = tuple(p.strip().lower() for p in text.split(",") if p.strip())
    for p in parts:
        if p not in TRAIN_MODULES:
            raise UserError("estimate.bad_train_module", value=p, choices=", ".join(TRAIN_MODULES))
    return parts


def validate(req: MemoryRequest) -> None:
    """Reject impossible inputs with one clear message each."""
    if req.mode not in MODES:
        raise UserError("estimate.bad_mode", value=req.mode, choices=", ".join(MODES))
    for name, value in (
        ("--batch", req.batch),
        ("--seq-len", req.seq_len),
        ("--gpus", req.gpus),
        ("--lora-rank", req.lora_rank),
    ):
        if value < 1:
            raise UserError("estimate.not_positive", flag=name, value=value)
    if req.context is not None and req.context < 1:
        raise UserError("estimate.not_positive", flag="--context", value=req.context)
    if req.strategy not in STRATEGIES:
        raise UserError("estimate.bad_strategy", value=req.strategy, choices=", ".join(STRATEGIES))
    if req.attention is not None and req.attention not in ATTENTIONS:
        raise UserError(
            "estimate.bad_attention", value=req.attention, choices=", ".join(ATTENTIONS)
        )


def check_tp(m: LlmModel, tp: int) -> None:
    """Tensor parallelism splits attention heads: the degree must divide them."""
    if m.heads % tp or (m.kv_heads % tp and tp % m.kv_heads):
        raise UserError("estimate.bad_tp", tp=tp, heads=m.heads, kv_heads=m.kv_heads)
