"""Published speed measurements (tests/data/speed_cases.toml) as speed-model inputs.

Shared by the accuracy tests, the calibration fit (estimate/speed_fit.py) and the benchmark
scripts, so all of them compare the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from gpuwise.catalog import Catalog
from gpuwise.catalog.schema import Gpu
from gpuwise.estimate.constants import MemoryConstants
from gpuwise.estimate.request import MemoryRequest
from gpuwise.estimate.resolve import Resolved, resolve
from gpuwise.estimate.serving import running_requests
from gpuwise.estimate.speed import (
    SpeedEstimate,
    SpeedInputs,
    batch_prefill_s,
    inference_speed,
    kernel_kind,
)
from gpuwise.estimate.speed_constants import (
    SpeedConstants,
    backend_of,
    card_class,
    decode_memory_key,
    engine_family,
)
from gpuwise.estimate.train_speed import training_speed

_ENGINES = {"other": "transformers", "mlx": "mlx"}
_QUANTS = {"q4_k_s": "q4_k_m"}
_MOE_KERNELS = {"grouped": False, "loop": True}
"""A case's `moe_kernels`: grouped GEMMs (Megatron) or Hugging Face's loop over experts."""


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


@dataclass(frozen=True)
class PreparedCase:
    """A case resolved once: the request, the card, and the groups its efficiencies belong to."""

    case: dict[str, Any]
    r: Resolved
    inputs: SpeedInputs

    @property
    def id(self) -> str:
        """The case id."""
        return str(self.case["id"])

    @property
    def kind(self) -> str:
        """decode, prefill, serving, e2e or train."""
        return str(self.case["kind"])

    @property
    def measured(self) -> float:
        """The published tokens/s."""
        return float(self.case["measured_tokens_per_s"])

    @property
    def gpu(self) -> Gpu:
        """The card measured."""
        return self.inputs.gpu

    @property
    def source(self) -> str:
        """The publication the number comes from (cross-validation leaves one out at a time)."""
        return case_source(self.case)

    @property
    def card_class(self) -> str:
        """consumer, workstation, datacenter, apple or amd."""
        return card_class(self.gpu)

    @property
    def engine(self) -> str:
        """The engine whose kernels ran."""
        return engine_family(self.r.engine.id)

    @property
    def backend(self) -> str:
        """cuda, rocm, metal or vulkan."""
        return self.inputs.backend or backend_of(self.gpu)

    @property
    def memory(self) -> str:
        """hbm, gddr or unified, with the backend where it is not CUDA's or Metal's."""
        return decode_memory_key(self.gpu, self.backend)

    @property
    def kernel(self) -> str:
        """The weight format's kernel family."""
        return kernel_kind(self.r.fmt)


def case_source(case: dict[str, Any]) -> str:
    """The case's `source` key, else its URL without query or fragment."""
    if case.get("source"):
        return str(case["source"])
    parts = urlsplit(str(case["url"]))
    return f"{parts.netloc}{parts.path}"


def prepare_case(
    cat: Catalog, mc: MemoryConstants, case: dict[str, Any], sc: SpeedConstants | None = None
) -> PreparedCase:
    """Resolve one case's request and speed inputs.

    A serving case sent `concurrency` requests at once (`saturated`: all of them at the start);
    the server ran as many of them as its scheduler and KV pool allow (estimate/scheduler.py),
    which is its concurrency. The case's `kv_dtype` (an FP8 KV cache) sizes that pool and the
    cache each decode step reads.
    """
    kind = case["kind"]
    gpus = int(case.get("gpus", 1))
    training = kind == "train"
    prompt = int(case.get("prompt_tokens") or case.get("derived_prompt_tokens") or 1)
    gen = int(case.get("gen_tokens") or case.get("derived_gen_tokens") or 1)
    accumulation = int(case.get("grad_accumulation") or 1)
    req = MemoryRequest(
        model=cat.model(case.get("model_id") or case["model"]),
        mode=case.get("mode", "inference") if training else "inference",
        quant=_QUANTS.get(case["quant"], case["quant"]),
        batch=max(1, int(case.get("batch") or 1) // accumulation),
        seq_len=int(case.get("seq_len") or 2048),
        context=None if training else prompt + gen,
        prompt_tokens=prompt,
        kv_dtype=None if training else case.get("kv_dtype"),
        precision=case.get("precision", "bf16") if training else "mixed-bf16",
        grad_checkpointing=bool(case.get("grad_checkpointing", True)),
        gpus=gpus,
        ubatch=int(case["ubatch"]) if case.get("ubatch") else None,
        strategy=case.get("strategy")
        or (
            "fsdp"
            if training and gpus > 1
            else "tp"
            if gpus > 1 and case["engine"] in ("vllm", "sglang", "mlc", "tensorrt-llm")
            else "none"
        ),
        engine=_ENGINES.get(case["engine"], case["engine"]),
    )
    gpu = cat.gpu_by_id(case["gpu_id"])
    concurrency = case.get("concurrency") if kind == "serving" else None
    if concurrency:  # beyond the engine's running batch, requests queue (estimate/scheduler.py)
        consts = sc or SpeedConstants.from_catalog(cat)
        built = case.get("build_date")
        concurrency = running_requests(req, mc, consts, gpu, int(concurrency), built, gen)
    inputs = SpeedInputs(
        gpu=gpu,
        gen_tokens=gen,
        concurrency=concurrency,
        backend=case.get("backend"),
        built=case.get("build_date"),
        enforce_eager=bool(case.get("enforce_eager", False)),
        model_parallel=int(case.get("tensor_parallel", 1)) * int(case.get("pipeline_parallel", 1)),
        expert_parallel=int(case.get("expert_parallel", 1)),
        moe_expert_loop=_MOE_KERNELS.get(str(case.get("moe_kernels"))),
        execution=case.get("execution"),
        grad_accumulation=accumulation,
        **_fabric(cat, case),
    )
    return PreparedCase(case, resolve(req, mc), inputs)


def _fabric(cat: Catalog, case: dict[str, Any]) -> dict[str, Any]:
    """The machines a multi-node case ran on and their network, from the catalog system the
    case names (`fabric_system`: a DGX H100 is an HGX H100 8-GPU board with 8 x 400 Gb/s)."""
    name = case.get("fabric_system")
    if not name:
        return {}
    system = next((x for x in cat.extra("system") if x.id == name), None)
    if system is None:
        raise ValueError(f"case {case.get('id')}: fabric_system {name!r} is not a catalog system")
    network = (system.network_gbps_per_gpu or 0.0) * system.gpus
    return {"node_gpus": system.gpus, "network_gbps_per_node": network or None}


def estimate(pc: PreparedCase, sc: SpeedConstants) -> SpeedEstimate:
    """gpuwise's estimate for a prepared case."""
    if pc.kind == "train":
        return training_speed(pc.r, sc, pc.inputs)
    return inference_speed(pc.r, sc, pc.inputs)


def predicted(pc: PreparedCase, sc: SpeedConstants) -> float:
    """The tokens/s the case measured, as gpuwise estimates it."""
    est = estimate(pc, sc)
    if pc.kind == "e2e":  # output tokens over the whole request: the batch's prompts prefilled
        # together (the first token), then gen − 1 decode steps
        batch, gen = pc.r.req.batch, pc.inputs.gen_tokens
        step = batch / (est.decode_tokens_per_s or 1e-9)
        prefill = batch_prefill_s(pc.r, sc, pc.inputs, batch)
        return batch * gen / (prefill + max(gen - 1, 0) * step)
    if pc.kind == "prefill" and pc.case.get("includes_first_token"):  # a time to first token
        return pc.r.prompt_tokens / (est.time_to_first_token_s or 1e-9)
    value = {
        "decode": est.decode_tokens_per_s,
        "prefill": est.prefill_tokens_per_s,
        "serving": est.serving_tokens_per_s,
        "train": est.train_tokens_per_s,
    }[pc.kind]
    return float(value or 0.0)


def calibration_ids(sc: SpeedConstants) -> set[str]:
    """Cases the fitted efficiencies were fitted on."""
    ids: set[str] = set()
    for group in (sc.decode, sc.overheads, sc.dequant, sc.prefill, sc.training):
        for item in group:
            ids.update(item.calibrated_on)
    return ids


def run_speed_case(
    cat: Catalog, mc: MemoryConstants, sc: SpeedConstants, case: dict[str, Any]
) -> SpeedResult:
    """Estimate one case's tokens/s."""
    pc = prepare_case(cat, mc, case)
    return SpeedResult(pc.id, pc.kind, pc.measured, predicted(pc, sc), pc.id in calibration_ids(sc))
