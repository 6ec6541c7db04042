"""Training step time: GEMM FLOPs at the rate the precision's kernels use, plus exposed traffic.

A step takes 6 × parameters FLOPs per token (8 × with full activation recomputation; LoRA skips
the weight gradients: 4 ×) plus attention, over GPUs × the sustained peak × the measured
achievable-matmul share × the utilisation training reaches (fitted per precision, mode and
architecture: data/speed_fitted.toml, read back to an eagerly run step) × the speed-up of how the
step runs (eager PyTorch, torch.compile, fused kernels such as Liger or Unsloth, or a fused-kernel
framework such as Megatron; speed.toml `train_execution`, each figure sourced). FP8 training
(Transformer Engine, torchao Float8Linear) runs the linear layers' GEMMs on FP8 tensor cores
where the card has them — twice the 16-bit rate on Ada, Hopper and Blackwell — while attention
stays 16-bit; a card without an FP8 unit runs the 16-bit rate. Communication: the data-parallel
gradient (or FSDP parameter) traffic of each GPU's share of the weights on the actual link, and a
MoE's expert-parallel all-to-all, each less what overlaps with compute; optimizer offload over
PCIe. A quantized frozen base (QLoRA) is dequantized to a 16-bit copy before each matmul that
uses it, once per micro-step whatever its token count (dequant_seconds).
"""

from __future__ import annotations

import dataclasses

from gpuwise.catalog.schema import Gpu
from gpuwise.estimate.memory import trainable_params
from gpuwise.estimate.resolve import Resolved
from gpuwise.estimate.speed import (
    SpeedEstimate,
    SpeedInputs,
    _attention_flops_per_token,
    kernel_kind,
    link_bandwidth_bps,
    pcie_bps,
    peak_half_flops,
    tensor_peak,
)
from gpuwise.estimate.speed_band import bands_of
from gpuwise.estimate.speed_constants import SpeedConstants, backend_of, engine_family
from gpuwise.estimate.weights import expert_params, param_split

FP8_PRECISIONS = frozenset({"mixed-fp8"})
"""Training precisions whose linear-layer GEMMs run in FP8."""


def precision_class(r: Resolved) -> str:
    """ "fp8" for FP8 training, "16-bit" otherwise (the key training utilisations are fitted by)."""
    return "fp8" if r.precision.id in FP8_PRECISIONS else "16-bit"


def _passes(r: Resolved) -> float:
    """Multiples of the weights one token's step multiplies: 6 (full), 4 (adapters: no weight
    gradients), +2 with full activation recomputation."""
    passes = 6.0 if r.req.mode == "full" else 4.0
    return passes + 2.0 if r.req.grad_checkpointing else passes


def train_flops_per_token(r: Resolved) -> float:
    """6N (full) or 4N (adapters: no weight gradients), +2N with recomputation, plus attention."""
    return _passes(r) * r.req.model.active_params_b * 1e9 + _attention_train_flops(r)


def _attention_train_flops(r: Resolved) -> float:
    return _attention_flops_per_token(r, r.req.seq_len / 2) * _passes(r) / 2


def gemm_peak(r: Resolved, sc: SpeedConstants, gpu: Gpu) -> tuple[float, str]:
    """The sustained peak the linear layers' GEMMs run at, and its rate (FP8 where the precision
    and the card have it)."""
    if precision_class(r) == "fp8":
        peak, rate = tensor_peak(gpu, "fp8", sc)
        return peak, rate
    return peak_half_flops(gpu) * sc.power_derate(gpu), "bf16"


def execution_of(r: Resolved, execution: str | None = None) -> str:
    """How the step runs: the one stated (a workload's or a measurement's), else the engine's
    catalog default; "unknown" (a source that does not say) counts as eager."""
    mode = execution or r.engine.train_execution
    return "eager" if mode == "unknown" else mode


def train_flops(
    r: Resolved, sc: SpeedConstants, gpu: Gpu, execution: str | None = None
) -> tuple[float, float, list[str]]:
    """Achieved 16-bit training FLOPS per GPU, its MFU, and the sources behind them.

    MFU = measured achievable-matmul share of the architecture × the share of that a training
    mode reaches at this precision when run eagerly × the execution mode's speed-up over eager
    (catalog speed.toml `train_execution`: torch.compile, fused kernels, Megatron-class
    frameworks), at most the whole ceiling, so no architecture is credited with more than its
    matmul ceiling; of the peak the card sustains (its power derate, estimate/power.py).
    Remembered per card, mode, precision, model kind and execution: the planner asks for every
    configuration.
    """
    kind = "moe" if r.req.model.moe else "dense"
    how = execution_of(r, execution)
    key = ("train_flops", r.req.mode, precision_class(r), kind, how)
    flops, mfu, sources = sc.per_card(key, gpu, lambda: _train_flops(r, sc, gpu, kind, how))
    return flops, mfu, list(sources)


def _train_flops(
    r: Resolved, sc: SpeedConstants, gpu: Gpu, kind: str, how: str
) -> tuple[float, float, list[str]]:
    util = sc.train_utilisation(r.req.mode, gpu.architecture, precision_class(r), kind)
    speedup = sc.train_execution(how)
    share = min(1.0, util.matmul_utilisation * (speedup.speedup if speedup else 1.0))
    ceiling = sc.matmul_entry(gpu)
    mfu = (ceiling.fraction if ceiling else 1.0) * share
    sources = [
        *util.source_ids(),
        *(speedup.source_ids() if speedup else []),
        *(ceiling.source_ids() if ceiling else []),
        *sc.power_source_ids(gpu),
    ]
    return peak_half_flops(gpu) * sc.power_derate(gpu) * mfu, mfu, sources


def compute_seconds(
    r: Resolved, sc: SpeedConstants, gpu: Gpu, tokens: float, execution: str | None = None
) -> float:
    """GEMM and attention time of `tokens` on one GPU: the linear layers at the precision's
    GEMM rate, attention at the 16-bit rate, both at the fitted share."""
    half, _, _ = train_flops(r, sc, gpu, execution)
    linear = _passes(r) * r.req.model.active_params_b * 1e9
    gemm, _ = gemm_peak(r, sc, gpu)
    share = half / (peak_half_flops(gpu) * sc.power_derate(gpu))
    return tokens * (linear / (gemm * share) + _attention_train_flops(r) / half)


def held_params(r: Resolved, model_parallel: int = 1, expert_parallel: int = 1) -> float:
    """Parameters one GPU holds: the weights split over `model_parallel` GPUs, a MoE's experts
    further over `expert_parallel` (each GPU keeps only its experts)."""
    m = r.req.model
    experts = expert_params(m) if m.moe else 0.0
    dense = m.params_b * 1e9 - experts
    mp = max(1, model_parallel)
    return dense / mp + experts / (mp * max(1, expert_parallel))


def comm_bytes_per_step(r: Resolved, model_parallel: int = 1, expert_parallel: int = 1) -> float:
    """Bytes each GPU sends per step of one micro-batch for data parallelism: ring all-reduce
    ≈ 2(N−1)/N of the parameters (or trainable ones) it holds (comm_bytes_by_cadence says how
    much of it repeats with gradient accumulation)."""
    req, m = r.req, r.req.model
    n = max(1, req.gpus // max(1, model_parallel))
    if r.strategy == "hsdp":  # inside one machine's shard group (hybrid_shard_seconds: across)
        n = min(n, req.shard_gpus or n)
    if req.gpus == 1 or (n == 1 and r.strategy != "tp"):
        return 0.0
    ring = 2 * (n - 1) / n
    params = held_params(r, model_parallel, expert_parallel)
    if r.strategy in ("zero3", "fsdp", "hsdp", "zero3-offload"):
        return 1.5 * ring * params * 2  # all-gather forward and backward, reduce-scatter grads
    if r.strategy == "tp":
        act = req.batch * req.seq_len * m.hidden_size * 2
        return 4 * m.layers * act * ring
    adapters, full = trainable_params(r)
    share = params / (m.params_b * 1e9)
    return ring * (adapters + full) * share * 2


ONCE_PER_OPTIMIZER_STEP = frozenset({"none", "ddp", "zero1"})
"""Layouts whose gradient traffic waits for the optimizer step: PyTorch DDP skips its all-reduce
inside no_sync() while gradients accumulate (pytorch/pytorch PR #21736; Hugging Face Accelerate
and Trainer wrap every micro-step but the last in it: huggingface.co/docs/accelerate, concept
guide 'Gradient synchronization'), and DeepSpeed ZeRO-1, like Megatron's distributed optimizer,
reduces 'only at gradient accumulation boundaries' (deepspeed/runtime/engine.py,
allreduce_gradients)."""

HALF_EACH_MICRO_STEP = frozenset({"zero2", "zero2-offload"})
"""Layouts that partition the gradients, so each micro-step reduce-scatters them ('ZeRO stage >= 2
communicates during non gradient accumulation boundaries as well', deepspeed/runtime/engine.py),
while the updated parameters are all-gathered once, after the optimizer step: half the ring's
volume each way (ZeRO paper, arXiv:1910.02054 §7.2.1)."""


def comm_bytes_by_cadence(
    r: Resolved, model_parallel: int = 1, expert_parallel: int = 1
) -> tuple[float, float]:
    """(bytes each GPU sends every micro-step, bytes it sends once per optimizer step).

    FSDP/ZeRO-3 gather the weights before every forward and backward and tensor parallelism
    exchanges activations, so their traffic repeats every micro-step; see the two sets above for
    the layouts that wait for the optimizer step."""
    total = comm_bytes_per_step(r, model_parallel, expert_parallel)
    if r.strategy in ONCE_PER_OPTIMIZER_STEP:
        return 0.0, total
    if r.strategy in HALF_EACH_MICRO_STEP:
        return total / 2, total / 2
    return total, 0.0


def hybrid_shard_seconds(r: Resolved, inside_bps: float, nics_bps: float) -> float:
    """Network seconds of one micro-step of hybrid sharding (PyTorch FSDP HYBRID_SHARD: full
    sharding inside each machine, a full copy per machine): the weights are gathered and the
    gradients reduce-scattered over the machine's own link (comm_bytes_per_step with the shard
    group), then each device's gradient slice is all-reduced with its peers on the other
    machines. The machine's devices share its NICs, so the machine sends 2(R − 1)/R × the
    trainable parameters' gradients (2 bytes each) through them: for LoRA the adapters only,
    a few hundred MB, where full sharding over every device sends the frozen weights too."""
    req = r.req
    shard = min(req.gpus, req.shard_gpus or req.gpus)
    machines = max(1, req.gpus // max(1, shard))
    inside = comm_bytes_per_step(r) / inside_bps if shard > 1 else 0.0
    if machines < 2:
        return inside
    adapters, full = trainable_params(r)
    across = 2 * (machines - 1) / machines * (adapters + full) * 2
    return inside + across / nics_bps


def exposed_comm_seconds(
    micro_s: float, once_s: float, hidden_s: float, accumulation: int
) -> float:
    """Communication a micro-step waits for, averaged over an optimizer step of `accumulation`
    micro-steps: each hides `hidden_s` of traffic behind its compute; the once-per-step traffic
    can only hide behind the last micro-step's backward, alongside that step's own traffic."""
    a = max(1, accumulation)
    every = max(0.0, micro_s - hidden_s)
    last = max(0.0, micro_s + once_s - hidden_s)
    return ((a - 1) * every + last) / a


def all_to_all_bytes_per_step(r: Resolved, expert_parallel: int) -> float:
    """Bytes each GPU sends per step to route its tokens to experts on other GPUs and back:
    tokens × top-k × hidden × 2 bytes, dispatch and combine, forward and backward, in every MoE
    layer, of which (EP − 1) ÷ EP leave the GPU."""
    m = r.req.model
    if m.moe is None or expert_parallel <= 1:
        return 0.0
    tokens = r.req.batch * r.req.seq_len
    per_layer = tokens * m.moe.active_experts * m.hidden_size * 2 * 2 * 2
    return per_layer * m.layers * (expert_parallel - 1) / expert_parallel


def all_to_all_seconds(r: Resolved, sc: SpeedConstants, gpu: Gpu, expert_parallel: int) -> float:
    """Time of the expert-parallel all-to-all: a token's experts are spread evenly over the EP
    group, so of the bytes leaving a GPU the share bound for other hosts crosses the network and
    the rest the host's GPU link (NVLink)."""
    ep = expert_parallel
    total = all_to_all_bytes_per_step(r, ep)
    if not total:
        return 0.0
    local = min(ep, gpu.max_per_host)
    remote_share = (ep - local) / (ep - 1)
    near = sc.link(gpu, local)
    near_bps = link_bandwidth_bps(gpu, sc, local) * near.bus_bandwidth_fraction
    seconds = total * (1 - remote_share) / near_bps
    if remote_share:
        far = sc.link(gpu, ep)
        seconds += (
            total * remote_share / (link_bandwidth_bps(gpu, sc, ep) * far.bus_bandwidth_fraction)
        )
    return seconds


def expert_loop_seconds(r: Resolved, sc: SpeedConstants, s: SpeedInputs) -> float:
    """Launch time a step spends looping over a MoE's experts one by one (0 without the loop).

    Hugging Face's MoE block runs each expert the batch routes to as its own module: an index,
    gate/up/down projections, the activation, the routing weight and a scatter-add, with a host
    sync to find the expert's tokens: about as many kernels as one eager decoder layer, so each
    expert of each MoE layer is priced at the engine's fitted per-layer decode launch cost (the
    transformers group: eager, no CUDA graphs). A forward, the backward (two forward's worth of
    kernels) and, with recomputation, a second forward run the loop; adapters on each expert's
    three projections (LoRA) add two GEMMs and an add each, about the expert's own count again.
    One forward per sequence (the frameworks' default per-device batch of 1 with gradient
    accumulation); the experts a sequence touches: E × (1 − (1 − k/E)^tokens). Checked against
    ms-swift's timings (tests/data/speed_cases.toml): Qwen1.5-MoE-A2.7B under ZeRO-2 takes 3.1 s
    a step more than under Megatron; the loop prices 1.6 s of it.
    """
    moe = r.req.model.moe
    loop = r.engine.moe_expert_loop if s.moe_expert_loop is None else s.moe_expert_loop
    if moe is None or not moe.experts or not loop:
        return 0.0
    per_expert = sc.overhead(engine_family(r.engine.id), backend_of(s.gpu)).ms_per_layer / 1000
    passes = 3.0 + (1.0 if r.req.grad_checkpointing else 0.0)
    if r.req.mode != "full":
        passes *= 2.0
    touched = moe.experts * (1 - (1 - moe.active_experts / moe.experts) ** r.req.seq_len)
    layers = moe.moe_layers or r.req.model.layers
    return r.req.batch * layers * touched * passes * per_expert


def dequant_seconds(r: Resolved, sc: SpeedConstants, s: SpeedInputs) -> float:
    """Time a micro-step spends turning a quantized frozen base into 16-bit copies (0 for float).

    bitsandbytes (QLoRA), torchao's NF4 and auto-gptq have no GEMM that reads 4-bit weights in
    training: each linear layer dequantizes its whole matrix before every matmul that uses it,
    in the forward, in the backward's input gradient and, with recomputation, in the second
    forward (Dettmers et al. 2023, arXiv:2305.14314 §3: "we dequantize the storage data type to
    the computation data type to perform the forward and backward pass"). The cost scales with
    the weights, not the tokens, so it dominates short micro-steps: bytes per weight per pass
    (speed.toml `train_dequant_bytes_per_weight`, by weight-format kind) × the linear weights
    one GPU multiplies (all of them under FSDP/ZeRO-3, which gather before use; its share under
    tensor or pipeline splits) over the card's datasheet bandwidth.
    """
    if r.fmt.kind == "float":
        return 0.0
    path = sc.kernel_rate(r.engine.id, kernel_kind(r.fmt), s.built, backend_of(s.gpu))
    if not path.train_dequant_bytes_per_weight or not s.gpu.memory_bandwidth_gbps:
        return 0.0
    _, _, linear, _ = param_split(r.req.model)
    per_gpu = linear / max(r.tp, s.model_parallel, 1)
    passes = 3.0 if r.req.grad_checkpointing else 2.0
    traffic = passes * per_gpu * path.train_dequant_bytes_per_weight
    return traffic / (s.gpu.memory_bandwidth_gbps * 1e9)


def training_speed(r: Resolved, sc: SpeedConstants, s: SpeedInputs) -> SpeedEstimate:
    """Step time, tokens/s and (with a token budget) total hours of training."""
    gpu, req = s.gpu, r.req
    _, mfu, mfu_sources = train_flops(r, sc, gpu, s.execution)
    replicas = req.gpus // r.tp
    tokens = req.batch * req.seq_len
    compute = compute_seconds(r, sc, gpu, tokens, s.execution) / r.tp
    across_nodes = bool(s.node_gpus and req.gpus > s.node_gpus and s.network_gbps_per_node)
    link = sc.link(gpu, gpu.max_per_host + 1 if across_nodes else req.gpus)
    link_bps = link_bandwidth_bps(gpu, sc, req.gpus) * link.bus_bandwidth_fraction
    inside = nics = link_bps
    overlap = link.overlap_fraction
    if across_nodes and s.node_gpus and s.network_gbps_per_node:
        # across machines the traffic leaves through the node's NICs, which its devices share.
        # A ring over every device, ordered machine by machine (NCCL's rings and trees, one
        # channel per NIC), crosses each machine's boundary on one edge: a machine sends what
        # one device sends in the ring, through all its NICs together, while the ring's other
        # edges run on NVLink/PCIe inside it, so the slower of the two sets the pace. nccl-tests
        # all_reduce bus bandwidth across H100 SXM nodes with 8 x 400 Gb/s NDR: 400-450 GB/s,
        # across L40S nodes (PCIe, no NVLink) on the same fabric: 40-50 GB/s (Saturn Cloud,
        # 'Validating Multi-Node GPU Clusters with NCCL Tests', expected bus bandwidth table)
        near = sc.link(gpu, s.node_gpus)
        inside = link_bandwidth_bps(gpu, sc, s.node_gpus) * near.bus_bandwidth_fraction
        nics = s.network_gbps_per_node / 8 * 1e9 * link.bus_bandwidth_fraction
        link_bps = min(nics, inside)
        if r.strategy == "hsdp":  # its gathers run inside the machine, overlapped as there
            overlap = near.overlap_fraction
    ep = min(s.expert_parallel, req.gpus)
    micro_bytes, once_bytes = comm_bytes_by_cadence(r, s.model_parallel, ep)
    if req.gpus == 1:
        micro_bytes = once_bytes = 0.0
    micro = micro_bytes / link_bps + all_to_all_seconds(r, sc, gpu, ep)
    if r.strategy == "hsdp" and req.gpus > 1:
        micro = hybrid_shard_seconds(r, inside, nics) + all_to_all_seconds(r, sc, gpu, ep)
        once_bytes = 0.0
    hidden = overlap * compute
    exposed = exposed_comm_seconds(micro, once_bytes / link_bps, hidden, s.grad_accumulation)
    offload = 0.0
    if r.strategy.endswith("offload"):
        adapters, full = trainable_params(r)
        offload = 2 * (adapters + full) * 2 / (pcie_bps(gpu, sc) * link.bus_bandwidth_fraction)
    loop = expert_loop_seconds(r, sc, s)
    dequant = dequant_seconds(r, sc, s)
    step = compute + exposed + offload + loop + dequant
    parts = {
        "compute": compute,
        "interconnect": exposed,
        "offload-link": offload,
        "expert-loop": loop,
        "dequantization": dequant,
    }
    tps = replicas * tokens / step
    hours = s.train_tokens * s.epochs / tps / 3600 if s.train_tokens else None
    factors = {
        "mfu": round(mfu, 3),
        "execution": execution_of(r, s.execution),
        "gemm_rate": gemm_peak(r, sc, gpu)[1],
        "exposed_s": exposed,
        "offload_s": offload,
        "expert_loop_s": loop,
        "dequant_s": dequant,
        "sources": sorted({*mfu_sources, link.source}),
    }
    est = SpeedEstimate(
        bound=max(parts, key=lambda k: parts[k]),
        train_tokens_per_s=tps,
        step_time_s=step,
        train_time_h=hours,
        factors=factors,
    )
    return dataclasses.replace(est, band=bands_of(est, sc, ("train",), r.engine.id, gpu))
