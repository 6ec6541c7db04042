"""Published speed measurements (tests/data/speed_cases.toml) as speed-model inputs.

Shared by the accuracy test and benchmarks/speed_accuracy.py so both compare the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpuwise.catalog import Catalog
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.request import MemoryRequest
from gpuwise.estimate.resolve import resolve
from gpuwise.estimate.speed import SpeedInputs, inference_speed, training_speed
from gpuwise.estimate.speed_constants import SpeedConstants

_ENGINES = {"other": "transformers", "mlx": "mlx"}
_QUANTS = {"q4_k_s": "q4_k_m"}


@dataclass(frozen=True)
class SpeedResult:
    """One published case next to gpuwise's estimate."""

    id: str
    kind: str
    measured: float
    estimated: float
    calibration: bool

    @property
    def error(self) -> float:
        """Signed relative error."""
        return (self.estimated - self.measured) / self.measured


def calibration_ids(sc: SpeedConstants) -> set[str]:
    """Cases the efficiency factors were fitted on."""
    ids: set[str] = set()
    for group in (sc.engines, sc.kernels, sc.training):
        for item in group:
            ids.update(item.calibrated_on)
    return ids


def run_speed_case(
    cat: Catalog, mc: MemoryConstants, sc: SpeedConstants, case: dict[str, Any]
) -> SpeedResult:
    """Estimate one case's tokens/s."""
    kind = case["kind"]
    gpus = int(case.get("gpus", 1))
    training = kind == "train"
    prompt = int(case.get("prompt_tokens") or case.get("derived_prompt_tokens") or 1)
    gen = int(case.get("gen_tokens") or case.get("derived_gen_tokens") or 1)
    req = MemoryRequest(
        model=cat.model(case.get("model_id") or case["model"]),
        mode=case.get("mode", "inference") if training else "inference",
        quant=_QUANTS.get(case["quant"], case["quant"]),
        batch=int(case.get("batch") or 1) if training else 1,
        seq_len=int(case.get("seq_len") or 2048),
        context=None if training else prompt + gen,
        prompt_tokens=prompt,
        precision=case.get("precision", "bf16") if training else "mixed-bf16",
        grad_checkpointing=bool(case.get("grad_checkpointing", True)),
        gpus=gpus,
        strategy=case.get("strategy")
        or (
            "fsdp"
            if training and gpus > 1
            else "tp"
            if gpus > 1 and case["engine"] in ("vllm", "sglang")
            else "none"
        ),
        engine=_ENGINES.get(case["engine"], case["engine"]),
    )
    r = resolve(req, mc)
    s = SpeedInputs(
        gpu=cat.gpu_by_id(case["gpu_id"]),
        gen_tokens=gen,
        concurrency=case.get("concurrency") if kind == "serving" else None,
    )
    est = training_speed(r, sc, s) if training else inference_speed(r, sc, s)
    value = {
        "decode": est.decode_tokens_per_s,
        "prefill": est.prefill_tokens_per_s,
        "serving": est.serving_tokens_per_s,
        "train": est.train_tokens_per_s,
    }[kind]
    return SpeedResult(
        case["id"],
        kind,
        float(case["measured_tokens_per_s"]),
        float(value or 0),
        case["id"] in calibration_ids(sc),
    )
