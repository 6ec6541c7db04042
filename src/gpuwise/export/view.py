"""The plan option an export writes, as plain typed values: the job, the hardware and the
configuration the plan sized, with nothing left to recompute.

Built from the option as `plan --json` states it (advise/report.plan_option, a typed PlanOption)
and the memory estimate's inputs (kv dtype, LoRA rank, training precision), so the planner can
change inside without the export files changing their numbers. Pure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from gpuwise.advise.engines import stack_of
from gpuwise.advise.evaluate import Option
from gpuwise.advise.report import plan_option
from gpuwise.advise.report_model import PlanOption
from gpuwise.advise.scenario import Scenario
from gpuwise.catalog import Catalog
from gpuwise.catalog.reading import read_model_name
from gpuwise.catalog.schema import LlmModel
from gpuwise.errors import UserError
from gpuwise.estimate.constants import MemoryConstants

GB = 1e9


@dataclass(frozen=True)
class ExportView:
    """One plan option, everything an export file needs (units in the names)."""

    number: int
    label: str
    kind: str
    mode: str
    model_id: str
    model_name: str
    hf_repo: str | None
    ollama_tag: str | None
    tag_quant: str | None
    model_layers: int
    context_tokens: int
    concurrency: int
    seq_len_tokens: int
    epochs: float
    gpu: str
    gpu_name: str
    vendor: str
    stack: str
    devices: int
    machines: int
    owned: bool
    provider: str | None
    provider_name: str | None
    instance: str | None
    billing: str | None
    quant: str
    engine: str
    strategy: str
    compute_precision: str | None
    train_precision: str | None
    micro_batch: int | None
    grad_accumulation: int | None
    grad_checkpointing: bool | None
    kv_tokens_per_request: int | None
    kv_dtype: str | None
    attention: str | None
    lora_rank: int | None
    lora_targets: tuple[str, ...]
    replicas: int
    memory_per_device_bytes: int
    memory_capacity_bytes: int
    checkpoint_bytes: int
    machines_per_replica: int = 1
    """Machines one serving replica spans (export refuses: no multi-node launch is written)."""
    step_tokens: int | None = None
    """The engine step token budget the plan chose (None: the engine's default)."""
    cards: tuple[tuple[str, int], ...] = ()
    """Every card the option runs on, by id and count: the owned cards kept, then those bought
    and added beside them (a layer split over unlike cards); empty: `devices` × `gpu`."""
    offload_fraction: float | None = None
    """Share of the weights run from system RAM beside the cards (CPU offload)."""
    companion_bytes: int = 0
    """Device memory the plan left for models served beside this one (workload.companions)."""
    batch_job: bool = False
    """A one-off batch (`samples`): each engine copy keeps the scenario's requests in flight."""
    card_half: str = "bf16"
    """The card's 16-bit type: what the layers a quantized format leaves alone run in (fp16 on
    a card without bf16: Turing, Ascend 310P)."""

    @property
    def hardware(self) -> str:
        """The cards as a launch file's comment names them: '1 x rtx-4090 + 1 x rtx-3090'
        for an owned card kept with one added, '2 x rtx-4090' for two alike, with the share
        of the weights in system RAM where some are offloaded."""
        cards = self.cards or ((self.gpu, self.devices),)
        text = " + ".join(f"{n} x {g}" for g, n in cards)
        if self.offload_fraction:
            text += f" + system RAM ({self.offload_fraction:.0%} of the weights)"
        return text

    @property
    def devices_per_node(self) -> int:
        """Devices in one machine (what one SkyPilot node or one pod gets)."""
        return self.devices // self.machines

    @property
    def devices_per_replica(self) -> int:
        """Devices one serving replica spans: the tensor- or pipeline-parallel degree."""
        return self.devices // max(self.replicas, 1)

    @property
    def concurrency_per_replica(self) -> int:
        """Concurrent requests each replica is sized for: a service's split evenly, a batch's
        in full (every copy draws from the queue: advise.sizing._share)."""
        if self.batch_job:
            return self.concurrency
        return math.ceil(self.concurrency / max(self.replicas, 1))

    @property
    def global_batch(self) -> int | None:
        """Sequences per optimizer step over every device (micro-batch × accumulation × devices)."""
        if self.micro_batch is None or self.grad_accumulation is None:
            return None
        return self.micro_batch * self.grad_accumulation * self.devices

    @property
    def checkpoint_gb(self) -> float:
        """The checkpoint's size on disk, GB."""
        return self.checkpoint_bytes / GB


def pick_option(options: list[Option], number: int) -> Option:
    """Option `number` (1-based) of the ranked list, or a one-line error."""
    if not options:
        raise UserError("export.no_options")
    if not 1 <= number <= len(options):
        raise UserError("export.bad_option", number=number, count=len(options))
    return options[number - 1]


def view_of(cat: Catalog, s: Scenario, o: Option, number: int, currency: str) -> ExportView:
    """The export view of option `number`: its JSON shape plus the estimate's inputs."""
    d = plan_option(cat, o, currency)
    cfg = d.config
    inputs: dict[str, Any] = dict(o.sized.memory.inputs)
    reading = read_model_name(cat, s.workload.model)
    model, w = reading.model, s.workload
    return ExportView(
        number=number,
        label=o.candidate.label,
        kind=w.kind,
        mode=w.mode,
        model_id=model.id,
        model_name=model.name,
        hf_repo=_hf_repo(s.workload.model, model),
        ollama_tag=_ollama_tag(s.workload.model, model, reading.kind),
        tag_quant=reading.tag_quant,
        model_layers=model.layers,
        context_tokens=w.context,
        concurrency=_added_concurrency(w.concurrency, d) if w.kind == "serve" else 1,
        seq_len_tokens=w.seq_len,
        epochs=w.epochs,
        gpu=d.gpu,
        gpu_name=o.candidate.gpu.name,
        vendor=d.vendor,
        stack=stack_of(o.candidate.gpu),
        card_half="bf16" if o.candidate.gpu.tflops.bf16 else "fp16",
        batch_job=w.kind == "serve" and w.batch_requests() > 0,
        devices=d.devices,
        machines=d.machines,
        owned=d.kind == "own",
        provider=d.provider,
        provider_name=d.provider_name,
        instance=d.instance,
        billing=d.billing,
        quant=cfg.quant,
        engine=_engine_id(cat, cfg.engine),
        strategy=cfg.strategy,
        compute_precision=cfg.compute_precision,
        train_precision=inputs.get("precision"),
        micro_batch=cfg.micro_batch,
        grad_accumulation=cfg.grad_accumulation,
        grad_checkpointing=cfg.grad_checkpointing,
        kv_tokens_per_request=cfg.kv_tokens_per_request,
        kv_dtype=inputs.get("kv_dtype"),
        attention=inputs.get("attention"),
        lora_rank=inputs.get("lora_rank"),
        lora_targets=tuple(inputs.get("lora_targets") or ()),
        replicas=cfg.replicas or 1,
        memory_per_device_bytes=d.memory_per_gpu_bytes,
        memory_capacity_bytes=d.memory_capacity_bytes,
        checkpoint_bytes=_checkpoint_bytes(cat, model, w.kind, cfg.quant),
        machines_per_replica=cfg.machines_per_replica or 1,
        step_tokens=cfg.step_tokens,
        cards=_cards(o),
        offload_fraction=o.candidate.offload_fraction or None,
        companion_bytes=o.sized.companion_bytes,
    )


def _added_concurrency(concurrency: int, d: PlanOption) -> int:
    """The requests in flight the exported hardware serves: all of them, less those owned
    machines kept beside it serve (advise/owned_beside.py; their own launch files stay)."""
    return concurrency - (d.kept_beside.requests if d.kept_beside else 0)


def _cards(o: Option) -> tuple[tuple[str, int], ...]:
    """The owned cards kept and the cards added beside them; () for one kind of card."""
    c = o.candidate
    if not c.owned_kept:
        return ()
    return (*c.owned_kept, (c.gpu.id, c.cards or c.count))


def _hf_repo(name: str, model: LlmModel) -> str | None:
    """The Hugging Face repository to load: the one the scenario names, else the model's chat
    (Instruct) repository, else its first."""
    if name in model.hf_repos:
        return name
    chat = [r for r in model.hf_repos if "instruct" in r.lower()]
    return next(iter(chat or model.hf_repos), None)


def _ollama_tag(name: str, model: LlmModel, kind: str) -> str | None:
    """The Ollama tag: the scenario's own, else the model's first."""
    if kind == "ollama" or name in model.ollama_tags:
        return name
    return model.ollama_tags[0] if model.ollama_tags else None


def _engine_id(cat: Catalog, name: str) -> str:
    """The engine's catalog id (a scenario may name it by an alias: deepspeed, llama-factory)."""
    try:
        return MemoryConstants.from_catalog(cat).engine(name).id
    except UserError:
        return name


def _checkpoint_bytes(cat: Catalog, model: LlmModel, kind: str, quant: str) -> int:
    """The checkpoint a run downloads: a fine-tune reads the model's own release (16-bit unless
    it ships quantized; QLoRA quantizes on load), a server the format the plan sized."""
    mc = MemoryConstants.from_catalog(cat)
    fmt = (model.weight_format_hint or "bf16") if kind == "train" else quant
    try:
        bits = mc.weight_format(fmt).bits_per_weight
    except UserError:
        bits = mc.weight_format("bf16").bits_per_weight
    return int(model.params_b * 1e9 * bits / 8)
