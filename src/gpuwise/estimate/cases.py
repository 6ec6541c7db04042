"""Published memory measurements (tests/data/memory_cases.toml) as estimator requests.

Used by the accuracy test and by benchmarks/memory_accuracy.py, so both compare the same thing:
the estimate of the kind the source measured (allocated peak, nvidia-smi total, or weights only),
in the source's unit, per GPU or summed over GPUs as the source reports it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from gpuwise.catalog import Catalog
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.memory import MemoryEstimate, estimate_memory
from gpuwise.estimate.request import MemoryRequest, parse_targets

_ENGINES = {"peft": "transformers", "other": "transformers"}


@dataclass(frozen=True)
class CaseResult:
    """One published case next to gpuwise's estimate."""

    id: str
    measured_gb: float
    estimated_gb: float
    kind: str

    @property
    def error(self) -> float:
        """Signed relative error of the estimate."""
        return (self.estimated_gb - self.measured_gb) / self.measured_gb


def case_request(cat: Catalog, case: dict[str, Any]) -> MemoryRequest:
    """The request a published case describes."""
    mode = case["mode"]
    training = mode != "inference"
    targets = str(case.get("lora_targets", "all-linear"))
    if targets.startswith("c_attn"):  # Qwen 1.0 names its fused qkv, proj and MLP this way
        targets = "all-linear"
    return MemoryRequest(
        model=cat.model(case["model"]),
        mode=mode,
        quant=case["quant"],
        batch=int(case["batch"]),
        seq_len=int(case["context"]) if training else 2048,
        context=None if training else int(case["context"]),
        prompt_tokens=case.get("prompt_tokens"),
        kv_dtype=case.get("kv_dtype"),
        optimizer=case.get("optimizer", "adamw"),
        precision=case.get("precision", "mixed-bf16"),
        grad_checkpointing=bool(case.get("grad_checkpointing", True)),
        fused_optimizer_step=bool(case.get("fused_optimizer_step", False)),
        attention=case.get("attention"),
        lora_rank=int(case.get("lora_rank", 16)),
        lora_targets=parse_targets(targets),
        gpus=int(case.get("gpus", 1)),
        strategy={"fsdp": "fsdp", "zero3": "zero3"}.get(
            case.get("strategy", "none"), case.get("strategy", "none")
        ),
        engine=_ENGINES.get(case["engine"], case["engine"]),
    )


def measured_value(est: MemoryEstimate, case: dict[str, Any]) -> float:
    """The estimate of the quantity the source measured, in the source's unit."""
    kind = case["measured"]
    if kind == "model_only":
        value = est.breakdown["weights"] + est.breakdown["quant_constants"]
    elif kind == "device_total":
        value = est.device_total_bytes
    else:
        value = est.allocated_peak_bytes
    if case.get("per_gpu") is False:
        value *= int(case.get("gpus", 1))
    return value / (1024**3 if case.get("unit", "GB") == "GiB" else 1e9)


def run_case(cat: Catalog, consts: MemoryConstants, case: dict[str, Any]) -> CaseResult:
    """Estimate one case."""
    est = estimate_memory(case_request(cat, case), consts)
    return CaseResult(
        case["id"], float(case["measured_gb"]), measured_value(est, case), case["measured"]
    )


def norm_url(url: str) -> str:
    """A URL without scheme, query, fragment or trailing slash (to match case and source)."""
    parts = urlsplit(url)
    return f"{parts.netloc}{parts.path}".rstrip("/")


def constant_source_urls(cat: Catalog) -> set[str]:
    """URLs of the sources the memory model's constants cite (data/memory.toml kinds): a case
    from one of them informed a constant, so it is not held out."""
    kinds = ("weight_format", "kv_dtype", "optimizer", "precision", "engine", "activation_model")
    ids = {sid for k in kinds for e in cat.extra(k) for sid in e.source_ids()}
    return {norm_url(cat.sources[i].url) for i in ids if i in cat.sources}
